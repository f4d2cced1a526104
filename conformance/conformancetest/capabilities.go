package conformancetest

import (
	"slices"
	"testing"

	"github.com/opcert/opcert/conformance"
)

// Capabilities checks a mechanism's rows of the capability table (opcert
// mechanisms) against its code: a form is ✔ iff a subject of that form is
// taken (an exec: and a deployment: subject resolve, a team's reconciler
// is not refused), a role that takes a Deployment belongs to a mechanism
// that says what a run on a cluster touches, watch and stream are ✔ iff
// the mechanism can be recorded and has facts readable one event at a
// time; every ✘ has its reason, and no reason is left for a ✔.
func Capabilities(t testing.TB, m *conformance.Mechanism) {
	t.Helper()
	rows := conformance.Capabilities([]*conformance.Mechanism{m})
	if len(rows) != len(m.Roles) {
		t.Fatalf("%s: %d rows for %d roles", m.Name, len(rows), len(m.Roles))
	}
	for i, r := range m.Roles {
		can := map[string]bool{}
		for _, c := range rows[i].Cells {
			can[c.Column] = c.Can
			if !c.Can && c.Why == "" {
				t.Errorf("%s.%s cannot %s, and says not why (Role.Cannot, Mechanism.Cannot)", m.Name, r.Name, c.Column)
			}
		}
		_, execErr := m.Subjects(map[string]string{r.Name: "exec:/bin/true"})
		_, deployErr := m.Subjects(map[string]string{r.Name: "deployment:operators/{name}-operator"})
		team := conformance.Cast{r.Name: {Name: "team", Impl: conformance.Reconciler{}}}
		for column, works := range map[string]bool{
			string(conformance.FormProcess): execErr == nil,
			string(conformance.FormCluster): deployErr == nil,
			string(conformance.FormLibrary): m.Refuses(team) == nil,
			conformance.CannotWatch:         m.Recording != nil,
			conformance.CannotStream:        len(m.Online) > 0,
		} {
			if can[column] != works {
				t.Errorf("%s.%s %s: the table says %t, the code %t", m.Name, r.Name, column, can[column], works)
			}
		}
		if can[string(conformance.FormCluster)] && m.Touches == nil {
			t.Errorf("%s.%s takes a Deployment, but %s does not say what a run on a cluster touches (Mechanism.Touches)", m.Name, r.Name, m.Name)
		}
		for f := range r.Cannot {
			if r.Takes(f) || !slices.Contains(conformance.AllForms, f) {
				t.Errorf("%s.%s gives a reason for %q, which it takes or which is no form", m.Name, r.Name, f)
			}
		}
	}
	for key := range m.Cannot {
		if key != conformance.CannotWatch && key != conformance.CannotStream ||
			key == conformance.CannotWatch && m.Recording != nil || key == conformance.CannotStream && len(m.Online) > 0 {
			t.Errorf("%s gives a reason for %q, which it can do or which is no capability", m.Name, key)
		}
	}
}
