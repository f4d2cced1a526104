package judge

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// A convention rule's failure is a warning unless the judging is strict,
// whether the timeline is judged whole (JudgeWith) or as it streams past
// (Stream); a failure that falls in a recording gap is not judged first,
// and other rules' failures stay failures.
func TestJudgeWarnsStyleUnlessStrict(t *testing.T) {
	style := failing
	style.Style = true
	passing := Rule{ID: "T-2", Style: true, Check: func(*Judging) Verdict { return Verdict{Status: reports.Pass, Message: "fine"} }}
	written := []timeline.Event{writeAt(time.Minute)}
	inGap := []timeline.Event{gapAt(0, timeline.VerbLost), writeAt(time.Minute), gapAt(2*time.Minute, timeline.VerbResumed)}
	for _, tc := range []struct {
		name   string
		rule   Rule
		events []timeline.Event
		strict bool
		want   reports.Status
	}{
		{"a style failure warns", style, written, false, reports.Warn},
		{"a style failure fails a strict judging", style, written, true, reports.Fail},
		{"another rule's failure fails", failing, written, false, reports.Fail},
		{"a passing style rule passes", passing, written, false, reports.Pass},
		{"a passing style rule passes a strict judging", passing, written, true, reports.Pass},
		{"a style failure in a gap is not judged", style, inGap, false, reports.Skip},
	} {
		t.Run(tc.name, func(t *testing.T) {
			end := timeline.Epoch.Add(time.Hour)
			j := NewJudging(tc.events, end)
			j.Strict = tc.strict
			c := JudgeWith([]Rule{tc.rule}, j)[0]
			if c.Status != tc.want {
				t.Errorf("JudgeWith: %s (%s), want %s", c.Status, c.Message, tc.want)
			}
			if tc.want == reports.Warn && c.Message != "bad write at +1m0s" {
				t.Errorf("a warning lost its message: %q", c.Message)
			}
			s := NewStream(Rulebook{Rules: []Rule{tc.rule}})
			s.Start, s.Strict = timeline.Epoch, tc.strict
			for _, e := range tc.events {
				s.Add(e)
			}
			cases, _ := s.Judge(end)
			if cases[0].Status != tc.want {
				t.Errorf("Stream: %s (%s), want %s", cases[0].Status, cases[0].Message, tc.want)
			}
		})
	}
}

// Instants before a judging's start read with a minus, never "+-".
func TestOffsetOf(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute:        "+10m0s",
		0:                       "+0s",
		-354 * time.Millisecond: "-354ms",
	} {
		if got := OffsetOf(d); got != want {
			t.Errorf("OffsetOf(%s) = %q, want %q", d, got, want)
		}
	}
}
