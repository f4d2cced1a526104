package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/reports"
)

// A subject that never acts is not certified (issue 20 §1): an operator
// that exits at once, or that acts on an object of another name, fails
// nothing and proves nothing, and opcert says so with exit 4; a command
// with a misspelled placeholder, or an executable that does not exist, is
// refused before anything starts (exit 2, nothing written).
func TestEmptyPassesAreNotJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	sc := processScenario(t, "8m") // about 5s of wall time
	for _, tc := range []struct {
		name, subject, why string
	}{
		{"exits at once", "exec:/bin/true", "ended without being asked"},
		{"never writes", "exec:/bin/sleep 600", "never acted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r")
			r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", out, "--subject", "operator="+tc.subject)
			if r.code != exitNotJudged {
				t.Fatalf("exit %d, want %d\n%s\n%s", r.code, exitNotJudged, r.stdout, r.stderr)
			}
			run := readReport(t, out).Runs[0]
			if !strings.Contains(strings.Join(run.NotJudged, "\n"), tc.why) {
				t.Errorf("not judged because %q, want %q", run.NotJudged, tc.why)
			}
			for _, want := range []string{"NOT JUDGED process-mode", "NOT JUDGED: 1 runs"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the summary lacks %q:\n%s", want, r.stdout)
				}
			}
			if run.Cases[0].Status == reports.Fail {
				t.Errorf("a rule failed: %+v", run.Cases[0])
			}
			analyzeAgrees(t, out, exitNotJudged) // and says why, as the run did
		})
	}
	for _, tc := range []struct {
		name, subject, want string
	}{
		{"a misspelled placeholder", "exec:/bin/true --name {nmae}", "as stale.operator: --subject operator=exec:/bin/true --name {nmae}: unknown placeholder {nmae}; the operator role's placeholders: {role}, {name}"},
		{"no such executable", "exec:./no-such-operator --name {name}", "the executable ./no-such-operator cannot be run"},
		{"not executable", "exec:" + sc + " --name {name}", "cannot be run: permission denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "r")
			earlierReport(t, out)
			r := opcert(t, nil, "run", sc, "--time-scale", "0.01", "--out", out, "--subject", "operator="+tc.subject)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "starting kube-apiserver") {
				t.Errorf("exit %d, want %d before the API server starts, saying %q\n%s", r.code, exitUsage, tc.want, r.stderr)
			}
			checkUntouched(t, out)
		})
	}
}
