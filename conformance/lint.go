package conformance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/opcert/opcert/visible"
)

// Linter checks files a mechanism's design says something about (a release
// payload's manifests, a bundle) before anything runs: static checks that
// need no API server and no timeline. A mechanism registers its linters
// from its package's init with RegisterLinter; the CLI offers each as
// "opcert lint <Name> PATH" without knowing the mechanism.
type Linter struct {
	Name      string // the command's name: manifests
	Mechanism string // the mechanism whose design it checks: clusteroperator
	Seed      string // 001
	Short     string // one line for listings
	Long      string // the help text: what is checked, each check's ID and section
	// Run checks path. The error is for a path that cannot be checked at
	// all (missing, not what the linter reads, larger than the linter
	// reads) and says what to give instead, or is ctx's cause once ctx is
	// done (Ctrl-C), which Run heeds between files; what is wrong inside
	// is in the findings.
	Run func(ctx context.Context, path string) (LintResult, error)
}

// LintResult is what one run of a linter found, and what it read.
type LintResult struct {
	// Checked says what was read, for the summary line ("5 files, 7
	// manifests, 1 ignored"), so that a clean result is not mistaken for
	// one that read nothing.
	Checked string
	// Findings are what the linter found; none: clean.
	Findings []LintFinding
}

// Count is the number of findings of severity s.
func (r LintResult) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Severity is how much a finding weighs: an error breaks what the design
// promises (the version operator stuck, a manifest it cannot read); a
// warning is something the design advises against or that is likely a
// slip (a file that is never applied).
type Severity string

// The severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// LintFinding is one thing a linter found, where, and what to do about it.
// The JSON names are stable: scripts read them.
type LintFinding struct {
	ID string `json:"id"` // stable per check: LINT-007
	// Severity says whether the finding fails the lint (error) or only warns.
	Severity Severity `json:"severity"`
	File     string   `json:"file"`           // relative to the path linted
	Line     int      `json:"line,omitempty"` // from 1; 0: the file as a whole
	Message  string   `json:"message"`        // what is wrong and what to fix
	Section  string   `json:"section"`        // the seed section: "001 §Version"
}

// String is the finding on one line, as opcert lint prints it: a file name
// that does not print as itself (a newline, an ESC in it) quoted, and the
// message's hidden characters made visible, so that no name can forge a
// line of the output or drive the terminal.
func (f LintFinding) String() string {
	at := visible.Quote(f.File)
	if f.Line > 0 {
		at = fmt.Sprintf("%s:%d", at, f.Line)
	}
	return fmt.Sprintf("%s: %s %s: %s [%s]", at, f.Severity, f.ID, visible.Line(f.Message), visible.Line(f.Section))
}

// SortFindings orders findings by file, line, then ID, as people read them.
func SortFindings(fs []LintFinding) {
	slices.SortStableFunc(fs, func(a, b LintFinding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.ID, b.ID))
	})
}

var (
	lintersMu sync.Mutex
	linters   = map[string]Linter{}
)

// RegisterLinter adds a linter; registering a name twice is a programming
// error.
func RegisterLinter(l Linter) {
	lintersMu.Lock()
	defer lintersMu.Unlock()
	if _, dup := linters[l.Name]; dup {
		panic(fmt.Sprintf("conformance: linter %q registered twice", l.Name))
	}
	linters[l.Name] = l
}

// Linters lists the registered linters by name.
func Linters() []Linter {
	lintersMu.Lock()
	defer lintersMu.Unlock()
	out := make([]Linter, 0, len(linters))
	for _, l := range linters {
		out = append(out, l)
	}
	slices.SortFunc(out, func(a, b Linter) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
