package clusteroperator_test

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode for seed 001: the example component operator
// (examples/componentoperator, written from the seed, nothing of opcert's
// in it), built here, plays each component's operator against opcert's
// API server in real time, a process per component started when the
// version operator applies its Deployment and replaced when an upgrade
// changes it, on every built-in scenario of the mechanism that can play
// in real time.

// processScale is the time scale the example is certified at: 0.02 plays
// the built-ins' 4h20m in 5m12s, in three groups side by side. At 0.01 a
// scenario's two minutes are 1.2s, no more than an operator process takes
// to start and make its first write on a busy machine: co-clean-upgrade
// asked its upgrade before the third component was installed, and
// co-upgradeable-blocks before etcd had seen the administrator's blocker.
const processScale = 0.02

// realTimeGroups are the built-ins that play in real time (not those with
// apiErrors steps, injected in virtual time only), in three groups of
// about the same length, longest first.
func realTimeGroups(t *testing.T) [][]string {
	t.Helper()
	var real []*scenarios.Scenario
	for _, sc := range builtins() {
		if conformance.RealTimeFaults(sc, true) == nil {
			real = append(real, sc)
		}
	}
	if len(real) < 9 {
		t.Fatalf("%d built-ins play in real time, want the 9 of seed 001 at least", len(real))
	}
	slices.SortStableFunc(real, func(a, b *scenarios.Scenario) int { return cmp.Compare(b.Duration.Duration, a.Duration.Duration) })
	groups, length := make([][]string, 3), make([]time.Duration, 3)
	for _, sc := range real {
		i := slices.Index(length, slices.Min(length))
		groups[i] = append(groups[i], sc.Name)
		length[i] += sc.Duration.Duration
	}
	return groups
}

// The example passes every built-in: every run judged and no rule nor
// expectation failed. Its careless variant fails CO-002, and an operator
// that does nothing is NOT JUDGED, never a pass. The groups, and the runs
// of the careless and the idle operator one after the other, play side by
// side, each on an API server of its own, as four opcert runs would:
// about two minutes of wall time.
func TestProcessModeCertifiesTheExample(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	bin := conformancetest.Build(t, "../../examples/componentoperator/cmd/componentoperator")
	type play struct {
		scale     float64
		subject   string
		scenarios []string
		runs      []reports.Run
		foreign   []string // writes of a ClusterOperator by another's process
		err       error
	}
	var plays []*play
	for _, names := range realTimeGroups(t) {
		plays = append(plays, &play{scale: processScale, subject: bin, scenarios: names})
	}
	// The careless variant reports 4.0.1 once the specs ask for it, while
	// old pods run: plain at any scale where the rollout never ends
	// (co-operand-stuck). An operator that never writes proves nothing.
	careless := &play{scale: 0.01, subject: bin + " --careless", scenarios: []string{"co-operand-stuck"}}
	idle := &play{scale: 0.01, subject: "/bin/sleep 600", scenarios: []string{"co-ordering-trap"}}
	m := clusteroperator.Mechanism(clusteroperator.DefaultConfig())
	run := func(w *apiserver.Server, p *play) {
		subjects := map[string]string{clusteroperator.RoleOperator: "exec:" + p.subject}
		for _, name := range p.scenarios {
			r, tl := conformancetest.PlayProcess(t, w, prefix(), m, name, subjects, p.scale)
			// Each ClusterOperator is written by its own process alone.
			p.foreign = append(p.foreign, conformancetest.Writers(tl, func(e timeline.Event) string {
				if e.Object.Kind == "ClusterOperator" && e.Role == clusteroperator.RoleOperator && e.Actor != clusteroperator.OperatorActor(e.Object.Name) {
					return name + ": " + e.Actor + " wrote ClusterOperator " + e.Object.Name
				}
				return ""
			})...)
			p.runs = append(p.runs, r)
		}
	}
	var wg sync.WaitGroup
	for i, p := range plays {
		wg.Go(func() {
			w := api
			if i > 0 {
				if w, p.err = apiserver.Start(context.Background(), apiserver.Options{}); p.err != nil {
					return
				}
				defer w.Stop()
			}
			run(w, p)
		})
	}
	wg.Go(func() {
		w, err := apiserver.Start(context.Background(), apiserver.Options{})
		if err != nil {
			careless.err = err
			return
		}
		defer w.Stop()
		run(w, careless)
		run(w, idle)
	})
	wg.Wait()
	for _, p := range append(plays, careless, idle) {
		if p.err != nil || len(p.runs) != len(p.scenarios) {
			t.Fatalf("%s on %v: %d runs, %v", p.subject, p.scenarios, len(p.runs), p.err)
		}
	}
	for _, p := range plays {
		for _, r := range p.runs {
			certified(t, r)
		}
		if len(p.foreign) > 0 {
			t.Errorf("each ClusterOperator is its own operator's: %q", p.foreign)
		}
	}
	if c, _ := conformancetest.Case(careless.runs[0], "CO-002"); c.Status != reports.Fail {
		t.Errorf("the careless variant: CO-002 %s (%s); want failed", c.Status, c.Message)
	}
	if r := idle.runs[0]; len(r.NotJudged) == 0 {
		t.Errorf("an operator that does nothing: not judged %q; want NOT JUDGED", r.NotJudged)
	}
}

// certified checks one run of the example: judged, nothing failed nor
// warned, each process's output kept and its end a graceful one.
func certified(t *testing.T, run reports.Run) {
	t.Helper()
	conformancetest.Certified(t, run)
	for _, c := range run.Cases {
		if c.Status == reports.Warn {
			t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
		}
	}
	if run.TimeScale != processScale || len(run.Processes) == 0 {
		t.Errorf("%s: time scale %v, %d processes", run.Scenario, run.TimeScale, len(run.Processes))
	}
	// Killed by the steps and the upgrades' replacements, each process
	// running at the end stops on SIGTERM.
	for _, p := range run.Processes {
		want := append(slices.Repeat([]string{conformancetest.KilledByStep}, max(len(p.Endings)-1, 0)), conformancetest.StoppedAtEnd)
		if !conformancetest.EndedAs(p.Endings, want...) {
			t.Errorf("%s: %s ended %q", run.Scenario, p.Name, p.Endings)
		}
	}
	conformancetest.Logged(t, run, "")
}
