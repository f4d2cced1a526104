package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func gapAt(off time.Duration, verb string) timeline.Event {
	return timeline.Event{Time: timeline.Epoch.Add(off), Actor: "recorder", Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: "ClusterOperator.config.openshift.io"}, Detail: "watch expired (410 Gone)"}
}

func writeAt(off time.Duration) timeline.Event {
	return timeline.Event{Time: timeline.Epoch.Add(off), Actor: "op", Verb: timeline.VerbUpdateStatus, Object: timeline.ObjectRef{Kind: "Widget", Group: "example.com", Name: "w"}}
}

// failing is a rule that fails once per write, with the write as evidence.
var failing = Rule{ID: "T-1", Check: func(j *Judging) Verdict {
	v := Verdict{Status: reports.Pass}
	for _, e := range j.Events {
		if e.IsWrite() {
			v.Status = reports.Fail
			v.Problems = append(v.Problems, Problem{Message: "bad write at " + j.Offset(e.Time), Evidence: []timeline.Event{e}})
		}
	}
	if v.Status == reports.Fail {
		v.Message = v.Problems[0].Message
	}
	return v
}}

// A failure whose window lies in a recording gap is not judged; one outside
// every gap still fails, and the message says what was left out and why.
func TestFailuresInAGapAreNotJudged(t *testing.T) {
	end := timeline.Epoch.Add(time.Hour)
	inside := []timeline.Event{gapAt(10*time.Minute, timeline.VerbLost), writeAt(12 * time.Minute), gapAt(15*time.Minute, timeline.VerbResumed)}
	c := Judge([]Rule{failing}, inside, end)[0]
	if c.Status != reports.Skip || !strings.Contains(c.Message, "not judged: recording gap from +10m0s to +15m0s (watch expired (410 Gone))") {
		t.Errorf("a failure inside the gap: %s %q, want a skip naming the gap", c.Status, c.Message)
	}

	both := append([]timeline.Event{writeAt(5 * time.Minute)}, inside...)
	c = Judge([]Rule{failing}, both, end)[0]
	if c.Status != reports.Fail || !strings.HasPrefix(c.Message, "bad write at +5m0s") || !strings.Contains(c.Message, "1 more not judged: recording gap from +10m0s") {
		t.Errorf("a failure outside the gap: %s %q, want it to fail, the other not judged", c.Status, c.Message)
	}
	if len(c.Evidence) != 1 || !c.Evidence[0].Time.Equal(timeline.Epoch.Add(5*time.Minute)) {
		t.Errorf("evidence %v, want only the write outside the gap", c.Evidence)
	}

	// A gap never resumed runs to the end.
	open := []timeline.Event{writeAt(5 * time.Minute), gapAt(20*time.Minute, timeline.VerbLost), writeAt(50 * time.Minute)}
	if gaps := Gaps(open, end); len(gaps) != 1 || !gaps[0].To.Equal(end) {
		t.Errorf("gaps %+v, want one to the end", gaps)
	}
	c = Judge([]Rule{failing}, open, end)[0]
	if c.Status != reports.Fail || !strings.Contains(c.Message, "to +1h0m0s") {
		t.Errorf("with an open gap: %s %q", c.Status, c.Message)
	}

	// Without gaps nothing changes.
	c = Judge([]Rule{failing}, []timeline.Event{writeAt(12 * time.Minute)}, end)[0]
	if c.Status != reports.Fail || c.Message != "bad write at +12m0s" {
		t.Errorf("no gap: %s %q", c.Status, c.Message)
	}
}

// A verdict that lists no problems is judged on its evidence as a whole.
func TestVerdictWithoutProblemsInAGap(t *testing.T) {
	whole := Rule{ID: "T-2", Check: func(j *Judging) Verdict {
		return Verdict{Status: reports.Fail, Message: "late", Evidence: []timeline.Event{writeAt(9 * time.Minute), writeAt(11 * time.Minute)}}
	}}
	events := []timeline.Event{gapAt(10*time.Minute, timeline.VerbLost), gapAt(10*time.Minute+time.Second, timeline.VerbResumed)}
	if c := Judge([]Rule{whole}, events, timeline.Epoch.Add(time.Hour))[0]; c.Status != reports.Skip {
		t.Errorf("evidence spanning the gap: %s %q, want not judged", c.Status, c.Message)
	}
}

// Kinds are lost and listed again each on its own: a gap lasts until every
// kind lost is listed again, and one still lost at the end is Open, naming
// what it lost. One kind listed again while another is still lost closed
// the gap, and a timeline ending in it passed for complete.
func TestGapLastsUntilEveryKindIsListedAgain(t *testing.T) {
	of := func(off time.Duration, verb, kind string) timeline.Event {
		e := gapAt(off, verb)
		e.Object.Name = kind
		return e
	}
	end := timeline.Epoch.Add(time.Hour)
	events := []timeline.Event{of(10*time.Minute, timeline.VerbLost, "Deployment.apps"), of(11*time.Minute, timeline.VerbLost, "Pod"),
		of(12*time.Minute, timeline.VerbResumed, "Deployment.apps")}
	gaps := Gaps(events, end)
	if len(gaps) != 1 || !gaps[0].From.Equal(timeline.Epoch.Add(10*time.Minute)) || !gaps[0].To.Equal(end) || !gaps[0].Open || gaps[0].Lost != "Pod" {
		t.Errorf("one kind still lost at the end: gaps %+v, want one open from +10m to the end, Pod lost", gaps)
	}
	events = append(events, of(13*time.Minute, timeline.VerbResumed, "Pod"))
	gaps = Gaps(events, end)
	if len(gaps) != 1 || !gaps[0].To.Equal(timeline.Epoch.Add(13*time.Minute)) || gaps[0].Open {
		t.Errorf("every kind listed again: gaps %+v, want one closed at +13m", gaps)
	}
}
