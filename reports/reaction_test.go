package reports

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// Every human and CI format states the reaction bound a run was judged
// with, and says nothing of one when the run had none.
func TestReactionBoundStated(t *testing.T) {
	r := testReport()
	r.Runs[1].Mechanism, r.Runs[1].Reaction = "stale", 45*time.Second
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"markdown", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) }, "Reaction bound: 45s"},
		{"junit", func(b *bytes.Buffer) error { return WriteJUnit(b, r) }, `<property name="opcert.reactionBound" value="45s">`},
		{"html", func(b *bytes.Buffer) error { return WriteHTML(b, r, fstest.MapFS{}) }, "stale 45s"},
		{"json", func(b *bytes.Buffer) error { return WriteJSON(b, r) }, `"reactionBoundNanos": 45000000000`},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if n := strings.Count(b.String(), f.want); n != 1 {
			t.Errorf("%s states %q %d times, want once", f.name, f.want, n)
		}
	}
	r.Runs[1].Reaction = 0
	var b bytes.Buffer
	if err := WriteMarkdown(&b, r); err != nil || strings.Contains(b.String(), "Reaction bound") {
		t.Errorf("a run without a bound: %v\n%s", err, b.String())
	}
}
