package judge

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
)

// A tally shows as the findings it was kept for: many things skipped for
// one reason count as many with the first reason; a clone keeps its
// problems apart from the original's, and a reworded one says the words
// known at the end.
func TestTallyShowsAsFindings(t *testing.T) {
	at := time.Unix(0, 0)
	var a Tally
	a.SkipN("down", 3)
	a.Skip("late")
	a.Judged = 2
	a.FailIn("X was wrong", at, at)
	b := a.Clone()
	b.Reword(func(msg string) string { return strings.Replace(msg, "X", "Y", 1) })
	b.FailIn("Z was wrong", at, at)

	var fa, fb Findings
	a.Into(&fa)
	b.Into(&fb)
	va, vb := fa.Verdict("none"), fb.Verdict("none")
	if want := "X was wrong; 4 not judged (down (and 3 more))"; va.Status != reports.Fail || va.Message != want {
		t.Errorf("original: %s %q, want fail %q", va.Status, va.Message, want)
	}
	if want := "Y was wrong (and 1 more); 4 not judged (down (and 3 more))"; vb.Status != reports.Fail || vb.Message != want {
		t.Errorf("clone: %s %q, want fail %q", vb.Status, vb.Message, want)
	}
	if fa.Judged != 2 || fb.Judged != 2 {
		t.Errorf("judged %d and %d, want 2 each", fa.Judged, fb.Judged)
	}
}
