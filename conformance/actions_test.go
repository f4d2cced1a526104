package conformance

import (
	"context"
	"slices"
	"testing"
	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// pokes is a world whose one action, poke, is remembered.
type pokes struct{ poked []string }

func (p *pokes) poke(_ context.Context, node string) error {
	p.poked = append(p.poked, node)
	return nil
}

// A run's steps are carried out by the handlers its Build bound; a world
// bound to a list without a step's action is refused before the run starts,
// naming the step, as the scenario's stop, not its subject's.
func TestPlayCarriesOutStepsByTheirBoundHandlers(t *testing.T) {
	sc := &scenarios.Scenario{Name: "s", Source: "f.yaml", Duration: scenarios.Duration{Duration: 2 * time.Minute},
		Steps: []scenarios.Step{{Action: "poke", Arg: "a", Time: time.Minute, Line: 7}}}
	for _, tc := range []struct {
		name    string
		actions *scenarios.Handlers[*pokes]
		poked   []string
		error   string
	}{
		{"bound", scenarios.Actions(scenarios.Act("poke", (*pokes).poke)), []string{"a"}, ""},
		{"another list", scenarios.Actions(scenarios.Act("prod", (*pokes).poke)), nil,
			"f.yaml:7: step at +1m0s: it cannot be carried out: no handler is bound for action poke; bound: prod"},
	} {
		w := &pokes{}
		m := Declare("m", "900", []Role{{Name: "r", Subjects: []Subject{{Name: "reference"}}}}, nil,
			func(context.Context, *Stage, *scenarios.Scenario, Cast) (Actions, error) {
				return tc.actions.On(w), nil
			})
		cast, err := Subjects(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		api := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()
		run, _ := Play(context.Background(), api, m, sc, cast, Options{Prefix: "t-"})
		if run.Error != tc.error || !slices.Equal(w.poked, tc.poked) {
			t.Errorf("%s: run error %q, poked %q; want %q, %q", tc.name, run.Error, w.poked, tc.error, tc.poked)
		}
		if tc.error != "" && run.Stopped != reports.StopScenario {
			t.Errorf("%s: stopped by %q, want the scenario's stop", tc.name, run.Stopped)
		}
	}
}
