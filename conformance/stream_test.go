package conformance_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// A timeline judged as it streams past (the mechanism's online facts, no
// events kept) gets the cases it gets when judged whole, on every golden
// timeline of the built-in stale scenarios.
func TestStreamJudgesAsTheWholeTimeline(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "golden", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no golden timelines")
	}
	m := stale.Mechanism(stale.DefaultConfig())
	for _, f := range files {
		name := filepath.Base(f[:len(f)-len(".jsonl")])
		sc, err := scenarios.BuiltinNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := timeline.ReadJSONL(in)
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
		end := timeline.Epoch.Add(sc.Duration.Duration)
		s := judge.NewStream(m.Rulebook())
		s.Start = timeline.Epoch
		for _, e := range tl.Events() {
			s.Add(e)
		}
		got, _ := s.Judge(end)
		want := judge.Judge(m.Rules, tl.Events(), end)
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("%s %s: streamed %s %q, whole %s %q", name, want[i].Rule, got[i].Status, got[i].Message, want[i].Status, want[i].Message)
			}
		}
	}
}
