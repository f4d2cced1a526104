package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
)

// A team's subject in a form its role does not declare is refused before
// anything starts, with the role's reason; the mechanism's Build never
// meets it.
func TestPlayRefusesAnUndeclaredForm(t *testing.T) {
	built := false
	m := Declare("m", "", []Role{
		{Name: "operator", Subjects: []Subject{{Name: "reference"}}, Forms: []Form{FormProcess}},
		{Name: "node", Subjects: []Subject{{Name: "reference"}}, Cannot: map[Form]string{FormLibrary: "its files are simulated"}},
	}, nil, func(context.Context, *Stage, *scenarios.Scenario, Cast) (Actions, error) {
		built = true
		return nil, nil
	})
	team := Subject{Name: "team", Impl: Reconciler{}}
	for _, tc := range []struct {
		cast Cast
		want string
	}{
		{Cast{"operator": team, "node": {Name: "reference"}}, "role m.operator cannot be played by a team's reconciler (library mode): the mechanism gives no reason"},
		{Cast{"operator": {Name: "reference"}, "node": team}, "role m.node cannot be played by a team's reconciler (library mode): its files are simulated"},
	} {
		run, _ := Play(context.Background(), nil, m, &scenarios.Scenario{Name: "s"}, tc.cast, Options{})
		if run.Error != tc.want || run.Stopped != reports.StopScenario || built {
			t.Errorf("run stopped %q with %q (built %t), want %q before Build", run.Stopped, run.Error, built, tc.want)
		}
	}
	if err := Refusal(m, "operator", FormProcess); err != nil {
		t.Errorf("the operator takes an executable: %v", err)
	}
	if err := Refusal(m, "node", FormLibrary); err == nil || !strings.HasSuffix(err.Error(), "its files are simulated") {
		t.Errorf("the node as a reconciler: %v", err)
	}
}

// A role said by what it cannot take takes every other form, and refuses
// those with their reasons.
func TestExceptTakesEveryOtherForm(t *testing.T) {
	r := Role{Name: "monitor"}.Except(map[Form]string{FormCluster: "its node is simulated"})
	if !r.Takes(FormLibrary) || !r.Takes(FormProcess) || r.Takes(FormCluster) || r.Cannot[FormCluster] != "its node is simulated" {
		t.Errorf("forms %v, cannot %v; want library and process, cluster refused with its reason", r.Forms, r.Cannot)
	}
	if none := (Role{Name: "platform"}).Except(NoForm("opcert plays it")); len(none.Forms) != 0 {
		t.Errorf("a role that takes no form takes %v", none.Forms)
	}
}
