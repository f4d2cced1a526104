package record

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// A timeline that ends in a recording gap never resumed is the
// environment's fault: the run ERROR, a rule that passed not judged from
// the gap's start, a failure seen before the gap standing. A recording
// still going (a watch judging what it has so far) is not marked, nor is a
// gap that opens after the span judged (--until).
func TestJudgeOfATimelineEndingInAGap(t *testing.T) {
	write := timeline.Event{Time: timeline.Epoch.Add(time.Minute), Actor: "op", Verb: timeline.VerbUpdateStatus,
		Object: timeline.ObjectRef{Kind: "Widget", Group: "example.com", Name: "w"}}
	m := Judged{Mechanism: "test", Book: judge.Rulebook{Rules: []judge.Rule{
		{ID: "T-PASS", Check: func(*judge.Judging) judge.Verdict {
			return judge.Verdict{Status: reports.Pass, Message: "all well"}
		}},
		{ID: "T-FAIL", Check: func(*judge.Judging) judge.Verdict {
			return judge.Verdict{Status: reports.Fail, Message: "bad write", Evidence: []timeline.Event{write}}
		}},
	}}}
	recording := timeline.ObjectRef{Kind: timeline.KindRecording, Name: "Widget.example.com"}
	lost := timeline.Event{Time: timeline.Epoch.Add(10 * time.Minute), Actor: RecorderActor, Verb: timeline.VerbLost, Object: recording, Detail: "connection refused"}
	stop := timeline.Event{Time: timeline.Epoch.Add(20 * time.Minute), Actor: RecorderActor, Verb: timeline.VerbStop, Object: recording}
	judged := func(j Judgement, events ...timeline.Event) reports.Run {
		t.Helper()
		var b bytes.Buffer
		for i, e := range events {
			e.Seq = i + 1
			if err := json.NewEncoder(&b).Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		src, err := Open(&b, nil)
		if err != nil {
			t.Fatal(err)
		}
		run, err := Judge(context.Background(), src, m, j)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	status := func(run reports.Run, rule string) reports.Case {
		for _, c := range run.Cases {
			if c.Rule == rule {
				return c
			}
		}
		t.Fatalf("no case of %s", rule)
		return reports.Case{}
	}

	run := judged(Judgement{Name: "t"}, write, lost, stop)
	if run.Stopped != reports.StopEnvironment || !strings.Contains(run.Error, "lost Widget.example.com at +9m0s (connection refused) and never reached it again") {
		t.Errorf("ended in a gap: stopped %q, error %q", run.Stopped, run.Error)
	}
	if c := status(run, "T-PASS"); c.Status != reports.Skip || !strings.Contains(c.Message, "not judged from +9m0s to the end") || !strings.Contains(c.Message, "all well") {
		t.Errorf("a rule that passed: %s %q, want not judged from the gap, saying what it found before", c.Status, c.Message)
	}
	if c := status(run, "T-FAIL"); c.Status != reports.Fail {
		t.Errorf("a failure before the gap: %s %q, want it to stand", c.Status, c.Message)
	}
	if g := run.Recording.Gaps; len(g) != 1 || !g[0].Open {
		t.Errorf("gaps %+v, want one, open", g)
	}

	for name, run := range map[string]reports.Run{
		"a recording still going":             judged(Judgement{Name: "t", Ongoing: true}, write, lost, stop),
		"a gap after the span judged (Until)": judged(Judgement{Name: "t", Until: 5 * time.Minute}, write, lost, stop),
	} {
		if run.Stopped != "" || status(run, "T-PASS").Status != reports.Pass {
			t.Errorf("%s: stopped %q, T-PASS %s, want it judged as it is", name, run.Stopped, status(run, "T-PASS").Status)
		}
	}
}
