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
// that says what a run on a cluster touches (conformance.Clustered),
// watch and stream are ✔ iff the mechanism can be recorded
// (conformance.Recordable) and has facts readable one event at a time
// (conformance.Streaming, with at least one); every ✘ has its reason
// (Role.Cannot, conformance.Limited), and no reason is left for a ✔.
func Capabilities(t testing.TB, m conformance.Mechanism) {
	t.Helper()
	rows := conformance.Capabilities([]conformance.Mechanism{m})
	if len(rows) != len(m.Roles()) {
		t.Fatalf("%s: %d rows for %d roles", m.Name(), len(rows), len(m.Roles()))
	}
	_, recordable := m.(conformance.Recordable)
	streaming, streams := m.(conformance.Streaming)
	if streams && len(streaming.Online()) == 0 {
		t.Errorf("%s is Streaming with no Online facts: its streams would keep every event", m.Name())
	}
	_, clustered := m.(conformance.Clustered)
	for i, r := range m.Roles() {
		can := map[string]bool{}
		for _, c := range rows[i].Cells {
			can[c.Column] = c.Can
			if !c.Can && c.Why == "" {
				t.Errorf("%s.%s cannot %s, and says not why (Role.Cannot, conformance.Limited)", m.Name(), r.Name, c.Column)
			}
		}
		_, execErr := conformance.Subjects(m, map[string]string{r.Name: "exec:/bin/true"})
		_, deployErr := conformance.Subjects(m, map[string]string{r.Name: "deployment:operators/{name}-operator"})
		team := conformance.Cast{r.Name: {Name: "team", Impl: conformance.Reconciler{}}}
		for column, works := range map[string]bool{
			string(conformance.FormProcess): execErr == nil,
			string(conformance.FormCluster): deployErr == nil,
			string(conformance.FormLibrary): conformance.Refuses(m, team) == nil,
			conformance.CannotWatch:         recordable,
			conformance.CannotStream:        streams,
		} {
			if can[column] != works {
				t.Errorf("%s.%s %s: the table says %t, the code %t", m.Name(), r.Name, column, can[column], works)
			}
		}
		if can[string(conformance.FormCluster)] && !clustered {
			t.Errorf("%s.%s takes a Deployment, but %s does not say what a run on a cluster touches (conformance.Clustered)", m.Name(), r.Name, m.Name())
		}
		for f := range r.Cannot {
			if r.Takes(f) || !slices.Contains(conformance.AllForms, f) {
				t.Errorf("%s.%s gives a reason for %q, which it takes or which is no form", m.Name(), r.Name, f)
			}
		}
	}
	limited, ok := m.(conformance.Limited)
	if !ok {
		return
	}
	for key := range limited.Cannot() {
		if key != conformance.CannotWatch && key != conformance.CannotStream ||
			key == conformance.CannotWatch && recordable || key == conformance.CannotStream && streams {
			t.Errorf("%s gives a reason for %q, which it can do or which is no capability", m.Name(), key)
		}
	}
}
