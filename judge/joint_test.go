package judge

import (
	"fmt"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// counting is a fold that counts the writes after its limit's minute,
// each fold keeping a number, never an event; opened counts the folds.
type counting struct {
	limit  time.Duration
	start  time.Time
	end    time.Time
	writes int
	asked  *int
}

func (c *counting) Ends(end time.Time) { c.end = end }

func (c *counting) Read(e timeline.Event) {
	if e.IsWrite() && e.Time.Sub(c.start) > c.limit {
		c.writes++
	}
}

func (c *counting) Verdicts(end time.Time) []Verdict {
	*c.asked++
	late := Verdict{Status: reports.Pass, Message: fmt.Sprintf("%d late, end known %v", c.writes, !c.end.IsZero())}
	if c.writes > 0 {
		late.Status = reports.Fail
	}
	return []Verdict{late, {Status: reports.Pass, Message: "until " + OffsetOf(end.Sub(c.start))}}
}

// A fold judges a timeline held whole once for all its rules, with its
// end told ahead; read as a stream, it judges the same as the events pass.
func TestJointlyFoldsOnceForEveryRule(t *testing.T) {
	asked := 0
	jt := Jointly[time.Duration]{Config: 10 * time.Minute, Open: func(limit time.Duration, start time.Time) Joint {
		return &counting{limit: limit, start: start, asked: &asked}
	}}
	rules := []Rule{{ID: "T-1"}, {ID: "T-2"}}
	for i := range rules {
		rules[i].Check = func(j *Judging) Verdict { return jt.Verdicts(j)[i] }
	}
	events := []timeline.Event{writeAt(5 * time.Minute), writeAt(12 * time.Minute), writeAt(30 * time.Minute)}
	end := timeline.Epoch.Add(time.Hour)
	batch := Judge(rules, events, end)
	if batch[0].Status != reports.Fail || batch[0].Message != "2 late, end known true" || batch[1].Message != "until +1h0m0s" {
		t.Errorf("batch: %+v", batch)
	}
	if asked != 1 {
		t.Errorf("the fold was asked %d times for two rules, want once", asked)
	}

	s := NewStream(Rulebook{Rules: rules, Online: []Online{jt.Online()}})
	s.Start = timeline.Epoch
	s.Tolerate(0)
	for _, e := range events {
		s.Add(e)
	}
	streamed, _ := s.Judge(end)
	// Streamed, the end is known only when it is judged.
	if streamed[0].Status != reports.Fail || streamed[0].Message != "2 late, end known false" || streamed[1].Message != "until +1h0m0s" {
		t.Errorf("stream: %+v", streamed)
	}

	// Another configuration folds the events the stream kept again.
	other := Jointly[time.Duration]{Config: time.Minute, Open: jt.Open}
	j := NewJudging(events, end)
	if v := other.Verdicts(j)[0]; v.Message != "3 late, end known true" {
		t.Errorf("a second configuration: %q", v.Message)
	}
}
