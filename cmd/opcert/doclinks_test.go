package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// layoutPending are the pages of the documentation layout that other work
// of issue 22 writes (concepts, development, install, the generated
// scenario format), which the user documents link before they exist. Once
// one exists, TestDocumentLinksResolve asks for it to be taken out, so
// that its links are checked as every other.
var layoutPending = []string{
	"docs/concepts/scenarios.md", "docs/concepts/rules.md", "docs/concepts/roles-and-subjects.md",
	"docs/concepts/reports.md", "docs/concepts/selftest.md", "docs/concepts/reliability.md",
	"docs/concepts/performance.md", "docs/concepts/architecture.md", "docs/concepts/adding-a-mechanism.md",
	"docs/concepts/limitations.md", "docs/concepts/glossary.md", "docs/development.md", "docs/install.md",
	"docs/reference/scenarios.md",
}

var (
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingLine  = regexp.MustCompile(`(?m)^#{1,6} +(.+)$`)
)

// TestDocumentLinksResolve holds every relative link of the user documents
// and the docs index to a file of the repository and, with a #fragment, to
// a heading of that file (as GitHub makes its anchors).
func TestDocumentLinksResolve(t *testing.T) {
	for _, p := range layoutPending {
		if _, err := os.Stat(filepath.Join(moduleRoot, p)); err == nil {
			t.Errorf("%s exists now: take it out of layoutPending (doclinks_test.go)", p)
		}
	}
	docs := append(userDocs(t), filepath.Join(moduleRoot, "docs", "README.md"))
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(moduleRoot, doc)
		for _, m := range markdownLink.FindAllStringSubmatch(string(data), -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			path, fragment, _ := strings.Cut(link, "#")
			target := doc
			if path != "" {
				target = filepath.Join(filepath.Dir(doc), path)
			}
			inRepo, _ := filepath.Rel(moduleRoot, target)
			if _, err := os.Stat(target); err != nil {
				if !slices.Contains(layoutPending, filepath.ToSlash(inRepo)) {
					t.Errorf("%s: the link %s leads to nothing (%s)", rel, link, inRepo)
				}
				continue
			}
			if fragment != "" && !hasAnchor(t, target, fragment) {
				t.Errorf("%s: the link %s names no heading of %s", rel, link, inRepo)
			}
		}
	}
}

// hasAnchor says whether a Markdown file has a heading whose GitHub anchor
// is fragment: lower case, spaces to hyphens, punctuation but hyphens and
// underscores left out.
func hasAnchor(t *testing.T, file, fragment string) bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range headingLine.FindAllStringSubmatch(string(data), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(m[1])) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		if b.String() == fragment {
			return true
		}
	}
	return false
}
