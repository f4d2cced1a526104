package staticpod

import (
	"regexp"
	"testing"

	"github.com/opcert/opcert/scenarios"
)

var positioned = regexp.MustCompile(`^fuzz\.yaml:\d+: `)

// FuzzParseStaticpod: no input crashes the staticpod part of the loader,
// every error has a position, and what it accepts is within the limits
// and plays (every reference resolves).
func FuzzParseStaticpod(f *testing.F) {
	entries, err := builtinFiles.ReadDir("scenarios")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := builtinFiles.ReadFile("scenarios/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	const head = "name: f\nmechanism: staticpod\nduration: 1h\nrevisions: [{revision: 1, operand: healthy}]\n"
	for _, s := range []string{
		"",
		head + "installed: 1\nlastKnownGood: true\nkeep: 1\n",
		head + "nodes: [a, b, c, d, e, f]\n",
		head + "revisions: []\n",
		head + "steps: [{rollout: {revision: -1}}, {killMonitor: ''}, {etcd: {down: maybe}}]\n",
		head + "writeTime: {installer: -1s, startupMonitor: 1h}\n",
		head + "installed: 9\nleftoverMonitor: -3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := scenarios.Parse("fuzz.yaml", data)
		if err != nil {
			if !positioned.MatchString(err.Error()) {
				t.Fatalf("error without a position: %q", err)
			}
			return
		}
		if s.Mechanism != Name {
			return
		}
		w := scenarioWorld(s)
		if n := len(w.NodeNames()); n < 1 || n > maxNodes {
			t.Fatalf("%d nodes accepted", n)
		}
		if len(w.Revisions) == 0 || len(w.Revisions) > maxRevisions {
			t.Fatalf("%d revisions accepted", len(w.Revisions))
		}
		for _, r := range w.Revisions {
			if err := r.model().Validate(); err != nil {
				t.Fatalf("revision %d accepted: %v", r.Revision, err)
			}
		}
		if w.Installed != 0 && !w.declared(w.Installed) {
			t.Fatalf("installed %d accepted, not declared", w.Installed)
		}
		if k := w.KeepCount(); k < 1 || k > maxKeep {
			t.Fatalf("keep %d accepted", k)
		}
		for i, st := range s.Steps {
			if r, ok := st.Arg.(*Rollout); ok && !w.declared(r.Revision) {
				t.Fatalf("steps[%d] rolls out %d, not declared", i, r.Revision)
			}
		}
	})
}
