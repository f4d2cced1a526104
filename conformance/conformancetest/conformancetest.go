// Package conformancetest holds what every mechanism's envtest suite needs
// (its API server comes from apiservertest.Main): its built-in scenarios
// (Builtins), golden timelines of them (Golden), a run's case by rule
// (Case), a benchmark's loop of runs (PlayLoop), the checks every
// mechanism passes, written once (Suite), its rows of the capability
// table held to its code (Capabilities), and its roles played by a team's
// executables as opcert run plays them (PlayProcess, Certified, process.go).
// It is for tests only; it names no mechanism.
//
// # Adding a mechanism
//
// The checklist is docs/concepts/adding-a-mechanism.md. The toy mechanism
// of toy_test.go takes its steps in one test file (its world, subjects and
// rule side by side), each marked with the step's number, and its test
// fails when the contract the steps describe moves; the page's own test
// (docs/concepts) fails when a step it marks is not the toy's.
package conformancetest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// goldenInline is the largest timeline kept whole; a larger one is kept as
// its SHA-256 and line count (the 24-hour stale fleet's is 17 MB).
const goldenInline = 1 << 20

// Golden compares a built-in scenario's timeline on the reference with the
// one kept under testdata/golden of the test package: a change that moves
// it must say why in its commit. OPCERT_UPDATE_GOLDEN=1 rewrites the files.
// When a timeline kept by digest moves, the new one is written to the
// temporary directory to diff.
func Golden(name string, tl *timeline.Timeline) error {
	var got bytes.Buffer
	if err := tl.WriteJSONL(&got); err != nil {
		return err
	}
	path := filepath.Join("testdata", "golden", name+".jsonl")
	data := got.Bytes()
	if got.Len() > goldenInline {
		path += ".sha256"
		data = fmt.Appendf(nil, "%x %d lines\n", sha256.Sum256(got.Bytes()), bytes.Count(got.Bytes(), []byte("\n")))
	}
	if os.Getenv("OPCERT_UPDATE_GOLDEN") == "1" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("no golden timeline (run with OPCERT_UPDATE_GOLDEN=1 and review the file): %w", err)
	}
	if bytes.Equal(data, want) {
		return nil
	}
	if strings.HasSuffix(path, ".sha256") {
		moved := filepath.Join(os.TempDir(), name+".jsonl")
		_ = os.WriteFile(moved, got.Bytes(), 0o644)
		return fmt.Errorf("the timeline of %s moved from %s: %s, was %s; the new one is in %s", name, path, strings.TrimSpace(string(data)), strings.TrimSpace(string(want)), moved)
	}
	return fmt.Errorf("the timeline of %s moved from %s (first difference at line %d)", name, path, firstDiff(string(data), string(want)))
}

func firstDiff(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range la {
		if i >= len(lb) || la[i] != lb[i] {
			return i + 1
		}
	}
	return len(la) + 1
}

// Case is the run's case of a rule, or false if it has none.
func Case(run reports.Run, rule string) (reports.Case, bool) {
	for _, c := range run.Cases {
		if c.Rule == rule {
			return c, true
		}
	}
	return reports.Case{}, false
}
