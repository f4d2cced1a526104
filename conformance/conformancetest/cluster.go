package conformancetest

import (
	"context"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// PlayCluster plays a scenario, a built-in's name or the path of a
// scenario file (.yaml), on the cluster cfg reaches (cluster mode, a
// team's Deployment among subjects: deployment:NS/NAME), as opcert run
// plays it once its guard has let the run through: its writes go through
// a cluster.Guard that lets it write what it creates (labelled with the
// run's id, prefix without its dash, cluster-scoped objects named under
// prefix) and the objects the mechanism says the run touches (what
// --allow-disruption agrees to), and what it created is deleted at the
// end, which fails t if anything is left. opcert run's own part (its
// flags, the user's rights, the run's namespace and record, the sweep,
// an interruption) is cmd/opcert's to test. The scenario's times are
// multiplied by scale. It may be called from any goroutine. It returns
// the run, its timeline and how many objects the clean-up deleted.
func PlayCluster(t testing.TB, cfg *rest.Config, prefix string, m conformance.Mechanism, scenario string, subjects map[string]string, scale float64) (reports.Run, *timeline.Timeline, int) {
	t.Helper()
	sc, cast, failed := load(t, m, scenario, subjects)
	if sc == nil {
		return failed, &timeline.Timeline{}, 0
	}
	base, err := client.NewWithWatch(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		t.Error(err)
		return reports.Run{Scenario: sc.Name, Error: err.Error()}, &timeline.Timeline{}, 0
	}
	cl := m.(conformance.Clustered)
	var touched []cluster.Ref
	for _, tc := range cl.Touches(sc, cast) {
		touched = append(touched, cluster.Ref{Kind: tc.Kind, Namespace: tc.Namespace, Name: tc.Name})
	}
	g := cluster.NewGuard(base, strings.TrimSuffix(prefix, "-"), prefix, touched, cluster.KindPolicy{Declared: cl.ClusterKinds()})
	run, tl := conformance.Play(context.Background(), g, m, sc, cast, conformance.Options{Prefix: prefix,
		Dir: t.TempDir(), TimeScale: scale, Cluster: cfg})
	deleted, left := g.Cleanup(cluster.CleanupTimeout)
	for _, l := range left {
		t.Errorf("%s: left on the cluster: %s", sc.Name, l)
	}
	return run, tl, deleted
}
