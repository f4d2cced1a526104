package docs_test

import (
	"go/ast"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	_ "github.com/opcert/opcert/conformance/all" // every mechanism registered
	"github.com/opcert/opcert/scenarios"
)

// pageSections are the sections every mechanism's page
// (conformance/<name>/README.md) has: what its seed asks, how opcert reads
// it where it is ambiguous, the audit of its rules, its built-ins and
// what it leaves out. Code cites the page's decisions; the pages say why
// the rules are what they are.
var pageSections = []string{
	"## What the seed asks",
	"## Seed decisions",
	"## Audit: the seed, clause by clause",
	"## Scenarios",
	"## Not modelled",
}

// Every registered mechanism has its page beside its code, with the
// sections above, the decision on its seed ("### Decision <seed>") and
// every one of its built-in scenarios named (its links are held with every
// page's by TestPagesNameWhatExists).
func TestEveryMechanismHasItsPage(t *testing.T) {
	builtins, err := scenarios.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	plugins := conformance.Plugins()
	if len(plugins) == 0 {
		t.Fatal("no mechanism is registered")
	}
	for _, p := range plugins {
		page := filepath.Join("conformance", p.Name, "README.md")
		data, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("mechanism %s has no page: %v", p.Name, err)
			continue
		}
		headings := headingsOf(string(data))
		for _, want := range append(slices.Clone(pageSections), "### Decision "+p.Seed) {
			if !slices.Contains(headings, want) {
				t.Errorf("%s has no heading %q", page, want)
			}
		}
		named := 0
		for _, s := range builtins {
			if s.Mechanism != p.Name {
				continue
			}
			named++
			if !strings.Contains(string(data), "`"+s.Name+"`") {
				t.Errorf("%s does not name its built-in scenario `%s`", page, s.Name)
			}
		}
		if named == 0 {
			t.Errorf("mechanism %s has no built-in scenario to name", p.Name)
		}
	}
}

func headingsOf(md string) []string {
	var hs []string
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "#") {
			hs = append(hs, strings.TrimSpace(line))
		}
	}
	return hs
}

var (
	// notHere names documents kept outside the repository: the design
	// notes and the notes on what shipped upstream, whose content now is
	// in the mechanisms' pages and docs/upstream.md, and the seeds' files
	// beside the checkout.
	notHere = regexp.MustCompile(`\b(DESIGN|UPSTREAM)\b|\.\./shared/`)
	// mdPath is a cited Markdown file: a path with a directory, or a name
	// in capitals (README.md). A bare lower-case name is a file a command
	// writes (report.md, selftest.md), not a citation.
	mdPath = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.md\b|\b[A-Z][A-Z0-9_-]*\.md\b`)
	// readmeSection is a section of the top-level README cited by its
	// title: the README is the short entry page, whose sections move; a
	// comment cites the file that holds the matter instead.
	readmeSection = regexp.MustCompile(`\bREADME\s+\(?"`)
	// mdSection is a Markdown file cited with the title of one of its
	// sections: conformance/olm/README.md, "The aggregator role".
	mdSection = regexp.MustCompile(`([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md),?\s+\(?"([^"]+)"`)
	// decision is a citation of a seed decision and the page holding it.
	decision = regexp.MustCompile(`decision\s+(?://\s*)?(\d{3}),?\s+(?://\s*)?(?:of\s+|in\s+|\()?(conformance/[a-z]+/README\.md)`)
)

// No Go comment cites a document the repository does not hold: every
// Markdown path a comment names exists (beside the file or from the
// module's root) and has the section a comment names with it, no comment
// cites a section of the top-level README by its title alone, a seed
// decision is cited where its page holds it, and
// neither the design notes nor the upstream notes are cited by their old
// names (nor named in a non-test file's strings, which reach help texts
// and reports).
func TestCodeCitesOnlyWhatTheRepositoryHolds(t *testing.T) {
	_, files := sources(t)
	for _, src := range files {
		for _, g := range src.file.Comments {
			checkCitations(t, src.rel, g.Text())
		}
		if strings.HasSuffix(src.rel, "_test.go") {
			continue
		}
		ast.Inspect(src.file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && notHere.MatchString(s) {
					t.Errorf("%s: a string names %q, a document the repository does not hold: %.80q", src.rel, notHere.FindString(s), s)
				}
			}
			return true
		})
	}
}

func checkCitations(t *testing.T, file, text string) {
	t.Helper()
	if m := notHere.FindString(text); m != "" {
		t.Errorf("%s: a comment cites %s, which the repository does not hold: cite the page that holds it (a mechanism's README.md, docs/upstream.md)", file, m)
	}
	if readmeSection.MatchString(text) {
		t.Errorf("%s: a comment cites a section of the top-level README by its title: cite the file that holds it", file)
	}
	for _, p := range mdPath.FindAllString(text, -1) {
		if !exists(filepath.Join(root, filepath.Dir(file), p)) && !exists(filepath.Join(root, p)) {
			t.Errorf("%s: a comment cites %s, which does not exist beside it nor from the module's root", file, p)
		}
	}
	for _, m := range mdSection.FindAllStringSubmatch(text, -1) {
		path := filepath.Join(root, filepath.Dir(file), m[1])
		if !exists(path) {
			path = filepath.Join(root, m[1])
		}
		page, err := os.ReadFile(path)
		if err != nil {
			continue // reported above when it is a citation
		}
		title := strings.Join(strings.Fields(m[2]), " ")
		if !slices.ContainsFunc(headingsOf(string(page)), func(h string) bool { return strings.Contains(h, title) }) {
			t.Errorf("%s: a comment cites the section %q of %s, which has no such heading", file, title, m[1])
		}
	}
	for _, m := range decision.FindAllStringSubmatch(text, -1) {
		page, err := os.ReadFile(filepath.Join(root, m[2]))
		if err != nil || !slices.Contains(headingsOf(string(page)), "### Decision "+m[1]) {
			t.Errorf("%s: a comment cites decision %s in %s, which has no heading \"### Decision %s\"", file, m[1], m[2], m[1])
		}
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
