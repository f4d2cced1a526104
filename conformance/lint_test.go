package conformance

import (
	"encoding/json"
	"slices"
	"testing"
)

// withLinters runs f on an empty linter registry and restores the
// registered ones after, so the test neither sees nor leaves any.
func withLinters(t *testing.T, f func()) {
	t.Helper()
	lintersMu.Lock()
	saved := linters
	linters = map[string]Linter{}
	lintersMu.Unlock()
	defer func() {
		lintersMu.Lock()
		linters = saved
		lintersMu.Unlock()
	}()
	f()
}

func TestLintersListedByNameAndRegisteredOnce(t *testing.T) {
	withLinters(t, func() {
		RegisterLinter(Linter{Name: "manifests", Mechanism: "m1"})
		RegisterLinter(Linter{Name: "bundle", Mechanism: "m2"})
		var names []string
		for _, l := range Linters() {
			names = append(names, l.Name+"/"+l.Mechanism)
		}
		if want := []string{"bundle/m2", "manifests/m1"}; !slices.Equal(names, want) {
			t.Errorf("Linters() = %v, want %v", names, want)
		}
		defer func() {
			if recover() == nil {
				t.Error("registering manifests twice did not panic")
			}
		}()
		RegisterLinter(Linter{Name: "manifests", Mechanism: "m3"})
	})
}

func TestSortFindingsAndCount(t *testing.T) {
	r := LintResult{Findings: []LintFinding{
		{ID: "LINT-002", Severity: SeverityError, File: "b.yaml", Line: 3},
		{ID: "LINT-009", Severity: SeverityWarning, File: "a.yaml", Line: 10},
		{ID: "LINT-001", Severity: SeverityError, File: "b.yaml", Line: 3},
		{ID: "LINT-004", Severity: SeverityError, File: "a.yaml", Line: 2},
		{ID: "LINT-012", Severity: SeverityWarning, File: "README.md"},
	}}
	SortFindings(r.Findings)
	var got []string
	for _, f := range r.Findings {
		got = append(got, f.File+" "+f.ID)
	}
	want := []string{"README.md LINT-012", "a.yaml LINT-004", "a.yaml LINT-009", "b.yaml LINT-001", "b.yaml LINT-002"}
	if !slices.Equal(got, want) {
		t.Errorf("sorted %v, want %v", got, want)
	}
	if e, w := r.Count(SeverityError), r.Count(SeverityWarning); e != 3 || w != 2 {
		t.Errorf("Count: %d errors, %d warnings, want 3 and 2", e, w)
	}
}

// The text form is what opcert lint prints, and the JSON names are what
// scripts read: both are kept stable.
func TestLintFindingForms(t *testing.T) {
	for _, tc := range []struct {
		f          LintFinding
		text, json string
	}{
		{LintFinding{ID: "LINT-004", Severity: SeverityError, File: "x.yaml", Line: 7, Message: "add it", Section: "001 §Version"},
			"x.yaml:7: error LINT-004: add it [001 §Version]",
			`{"id":"LINT-004","severity":"error","file":"x.yaml","line":7,"message":"add it","section":"001 §Version"}`},
		{LintFinding{ID: "LINT-012", Severity: SeverityWarning, File: "README.md", Message: "never applied", Section: "001 §S"},
			"README.md: warning LINT-012: never applied [001 §S]",
			`{"id":"LINT-012","severity":"warning","file":"README.md","message":"never applied","section":"001 §S"}`},
	} {
		if got := tc.f.String(); got != tc.text {
			t.Errorf("String() = %q, want %q", got, tc.text)
		}
		js, err := json.Marshal(tc.f)
		if err != nil || string(js) != tc.json {
			t.Errorf("json %s (%v), want %s", js, err, tc.json)
		}
	}
}
