package stackable

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// restartScenario kills and restarts the operator.
const restartScenario = `name: r
mechanism: stackable
duration: 5m
clusters:
  - name: simple
    roles:
      - {name: server, kind: StatefulSet, replicas: 2}
steps:
  - at: 1m
    killOperator: true
  - at: 2m
    restartOperator: true
`

func castOf(t *testing.T, subject string) conformance.Cast {
	t.Helper()
	cast, err := conformance.Subjects(Mechanism(DefaultConfig()), map[string]string{"stackable." + RoleOperator: subject})
	if err != nil {
		t.Fatal(err)
	}
	return cast
}

// What a run on a cluster writes that opcert did not create: the team's
// Deployment's scale, at the start and at each kill and restart step;
// opcert's own operator touches nothing and needs no more rights.
func TestTouchesAndAccess(t *testing.T) {
	sc, err := scenarios.Parse("r.yaml", []byte(restartScenario))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		subject string
		whys    []string
		rights  []string
	}{
		{"deployment:ops/stackable", []string{
			"Deployment.apps ops/stackable r: scaled to 1 if it has no replica at the start, and back at the end",
			"Deployment.apps ops/stackable r: step killOperator at +1m0s scales it to 0",
			"Deployment.apps ops/stackable r: step restartOperator at +2m0s scales it to 0 and back",
		}, []string{"StatefulSet list,watch", "Deployment list,watch", "DaemonSet list,watch", "Pod list,watch"}},
		{"reference", nil, nil},
		{"exec:/bin/true --namespaces {namespaces}", nil, nil}, // an executable that exists: a missing one is refused
	} {
		cast := castOf(t, tc.subject)
		var whys, rights []string
		for _, to := range touches(sc, cast) {
			whys = append(whys, to.Object()+" "+to.Why)
		}
		for _, a := range access(sc, cast) {
			if a.Namespace != "" || a.Role != roleOnCluster {
				t.Errorf("%s: %+v, want cluster-wide, granted by %s", tc.subject, a, roleOnCluster)
			}
			rights = append(rights, a.Kind.Kind+" "+strings.Join(a.Verbs, ","))
		}
		if !slices.Equal(whys, tc.whys) || !slices.Equal(rights, tc.rights) {
			t.Errorf("%s: touches %q, access %q; want %q, %q", tc.subject, whys, rights, tc.whys, tc.rights)
		}
	}
}

// On a cluster, a write the run did not make is the operator's, but the
// workloads' status, the controller-manager's writes and the pods, which
// are the cluster's.
func TestWhoOnCluster(t *testing.T) {
	for _, tc := range []struct {
		kind, verb, manager string
		want                string
	}{
		{"SampleCluster", timeline.VerbUpdateStatus, "stackableoperator", "operator operator"},
		{"StatefulSet", timeline.VerbCreate, "stackableoperator", "operator operator"},
		{"StatefulSet", timeline.VerbUpdate, "stackableoperator", "operator operator"},
		{"DaemonSet", timeline.VerbDelete, "unknown", "operator operator"},
		{"StatefulSet", timeline.VerbUpdateStatus, controllerManager, "cluster workload"},
		{"Deployment", timeline.VerbUpdate, controllerManager, "cluster workload"},
		{"Pod", timeline.VerbCreate, controllerManager, "cluster workload"},
		{"Pod", timeline.VerbUpdateStatus, "kubelet", "cluster workload"},
	} {
		e := timeline.Event{Actor: tc.manager, Verb: tc.verb, Object: timeline.ObjectRef{Kind: tc.kind}}
		whoOnCluster(context.Background(), nil, &e)
		if got := e.Actor + " " + e.Role; got != tc.want {
			t.Errorf("%s %s by %s: %q, want %q", tc.verb, tc.kind, tc.manager, got, tc.want)
		}
	}
}

// In process mode a deletion is the operator's process's without asking
// the audit, which cannot name it (processes.go, deleted; player.Mode.Who).
func TestAttributeDeletion(t *testing.T) {
	e := timeline.Event{Actor: "unknown", Verb: timeline.VerbDelete, Object: timeline.ObjectRef{Kind: "DaemonSet", Name: "trio-agent"}}
	(&world{}).operatorSpec().Process.Who(context.Background(), nil, &e)
	if e.Actor != actorOperator || e.Role != RoleOperator {
		t.Errorf("a deletion is put down to %s (%s), want the operator", e.Actor, e.Role)
	}
}

// A scenario that fails pods needs them patched and deleted, cluster-wide
// (the guard keeps the writes to the run's namespaces), and touches
// nothing more: they are the run's world.
func TestPodFaultsAccess(t *testing.T) {
	sc, err := scenarios.Parse("f.yaml", []byte(`name: f
mechanism: stackable
duration: 5m
clusters:
  - name: simple
    roles:
      - {name: server, kind: StatefulSet, replicas: 2}
steps:
  - at: 1m
    failPod: {cluster: simple, role: server, pod: 1}
  - at: 2m
    recoverPod: {cluster: simple, role: server, pod: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	cast := castOf(t, "deployment:ops/stackable")
	if n := len(touches(sc, cast)); n != 1 {
		t.Errorf("%d touches, want the Deployment's scale alone", n)
	}
	var rights []string
	for _, a := range access(sc, cast) {
		rights = append(rights, a.Kind.Kind+" "+strings.Join(a.Verbs, ",")+"@"+a.Namespace)
	}
	if want := "Pod get,patch,delete@"; !slices.Contains(rights, want) {
		t.Errorf("rights %q, want %q among them", rights, want)
	}
}
