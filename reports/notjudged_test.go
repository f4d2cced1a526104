package reports

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
)

// A run that failed nothing and proved nothing is NOT JUDGED in every
// format, with its reasons, and so is the report as a whole (unless a run
// failed or errored); JUnit shows it as an error, never a pass.
func TestNotJudgedInEveryFormat(t *testing.T) {
	r := testReport()
	r.Runs = r.Runs[:1] // the passing run
	r.Runs[0].NotJudged = []string{"the operator (exec:/bin/true) never acted"}
	if got := r.Verdict(); got != NotJudged {
		t.Fatalf("report verdict %s, want %s", got, NotJudged)
	}
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
		want  []string
	}{
		{"summary", func(b *bytes.Buffer) error { WriteSummary(b, r); return nil },
			[]string{"NOT JUDGED steady [operator=ref-good]: the operator (exec:/bin/true) never acted", "NOT JUDGED: 1 runs (0 could not complete), 1 of 2 rules judged"}},
		{"markdown", func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
			[]string{"# opcert report: NOT JUDGED", "| NOT JUDGED | 1 of 2 |", "- the operator (exec:/bin/true) never acted"}},
		{"junit", func(b *bytes.Buffer) error { return WriteJUnit(b, r) },
			[]string{`errors="1"`, `<error message="NOT JUDGED">the operator (exec:/bin/true) never acted</error>`}},
		{"html", func(b *bytes.Buffer) error { return WriteHTML(b, r, fstest.MapFS{}) },
			[]string{`<span class="badge not-judged">NOT JUDGED</span>`, "<li>the operator (exec:/bin/true) never acted</li>"}},
		{"json", func(b *bytes.Buffer) error { return WriteJSON(b, r) }, []string{`"notJudged": [`}},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		for _, w := range f.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q:\n%s", f.name, w, b.String())
			}
		}
	}
	// A failure elsewhere outranks it; a failing run's reasons are not
	// shown as NOT JUDGED.
	r.Runs[0].Cases[0].Status = Fail
	var b bytes.Buffer
	WriteSummary(&b, r)
	if r.Verdict() != "FAIL" || strings.Contains(b.String(), "NOT JUDGED") {
		t.Errorf("verdict %s with a failure; summary:\n%s", r.Verdict(), b.String())
	}
}
