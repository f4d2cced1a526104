package rules

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// fleet is n clusters of one StatefulSet of two, each losing a pod to
// Failed at random every 20 minutes on average and getting it back 5
// minutes later, for 24 virtual hours, the operator following the table:
// the lead's benchmark world as the rules see it.
func fleet(n int) *builder {
	b := newTimeline().process("0s", timeline.VerbStart)
	r := rand.New(rand.NewPCG(4, 4))
	type step struct {
		at    time.Duration
		i     int
		fails bool
	}
	var steps []step
	for i := range n {
		for t := time.Duration(r.IntN(1200)) * time.Second; t < 24*time.Hour-5*time.Minute; t += time.Duration(600+r.IntN(1200)) * time.Second {
			steps = append(steps, step{t, i, true}, step{t + 5*time.Minute, i, false})
		}
	}
	for i := range n {
		b.fleetMember("0s", i, "Running", 2)
	}
	slices.SortStableFunc(steps, func(a, b step) int { return cmp.Compare(a.at, b.at) })
	for _, s := range steps {
		phase, avail := "Running", 2
		if s.fails {
			phase, avail = "Failed", 1
		}
		b.fleetMember(s.at.String(), s.i, phase, avail)
	}
	return b
}

// fleetMember is cluster i's pod 1 in phase with avail replicas available,
// and the operator's conditions for it (created the first time).
func (b *builder) fleetMember(off string, i int, phase string, avail int) {
	name := fmt.Sprintf("f%d", i)
	ref := timeline.ObjectRef{Kind: kindCluster, Group: groupSamples, Namespace: ns, Name: name}
	sts := timeline.ObjectRef{Kind: kindStatefulSet, Group: groupApps, Namespace: ns, Name: name + "-server"}
	pod := podRef(name + "-server-1")
	labels := map[string]string{labelInstance: name, "app.kubernetes.io/component": "server"}
	if _, ok := b.fields[ref]; !ok {
		b.write(off, "scenario", timeline.VerbCreate, ref, map[string]any{fieldSpec: roles()}, nil)
		b.write(off, RoleOperator, timeline.VerbCreate, sts, map[string]any{fieldReplicas: 2, fieldTemplateLabels: labels}, nil)
		b.write(off, "workload", timeline.VerbCreate, podRef(name+"-server-0"), map[string]any{fieldLabels: labels, fieldPhase: "Running"}, nil)
		b.write(off, "workload", timeline.VerbCreate, pod, map[string]any{fieldLabels: labels, fieldPhase: phase}, nil)
	} else {
		b.write(off, "workload", timeline.VerbUpdate, pod, map[string]any{fieldPhase: phase}, nil)
	}
	b.write(off, "workload", timeline.VerbUpdateStatus, sts, map[string]any{fieldStatus: map[string]int{"availableReplicas": avail}}, nil)
	conds := []cond{available(), settled(), notDegraded(), reconciling(), running()}
	if avail < 2 {
		pods := "[" + name + "-server-1]"
		conds = []cond{unavailable(), podFailed(pods), degraded(pods, "[Failed]"), reconciling(), running()}
	}
	b.write(off, RoleOperator, timeline.VerbUpdateStatus, ref, nil, conds)
}

// BenchmarkRules judges the fleet with every rule: a thousand clusters for
// a day in virtual time.
func BenchmarkRules(b *testing.B) {
	tl := fleet(1000)
	rules := Rules(DefaultConfig())
	for b.Loop() {
		for _, c := range judge.Judge(rules, tl.events, timeline.Epoch.Add(24*time.Hour)) {
			if c.Status == reports.Fail {
				b.Fatalf("%s fails the fleet: %s", c.Rule, c.Message)
			}
		}
	}
	b.ReportMetric(float64(len(tl.events)), "events")
}
