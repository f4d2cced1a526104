// Package docs_test holds every Markdown page of the repository (README.md,
// docs/, the mechanisms' pages beside their code, the examples') to the
// repository it describes: every link leads to a file (and heading) that
// exists, every test, benchmark and fuzz target a page names is declared,
// every command `go test ... -run/-bench X` names a package that has a
// match for X, every `make` target is the Makefile's, every Go identifier
// written as `pkg.Name` or `pkg.Type.Member` is declared, and every
// repository path exists. A page that drifts from the code fails here,
// not in a reader's hands. Besides: each mechanism has its page with the
// sections it owes (mechanisms_test.go), no Go comment cites a document
// the repository does not hold, and adding a mechanism's checklist is the
// toy mechanism's (checklist_test.go), and every exported identifier has
// its doc comment (godoc_test.go). Whether the commands of the user
// documents run is cmd/opcert's TestDocumentedCommandsAreRun.
package docs_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository's root, from this package's directory.
const root = ".."

// pages are the Markdown pages this test holds, by path from the root:
// every one the repository has outside testdata and hidden directories.
func pages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || strings.HasPrefix(name, "opcert-")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = string(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found %d pages", len(out))
	}
	return out
}

var (
	link     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	fence    = regexp.MustCompile("(?ms)^```[a-z]*\n(.*?)^```")
	span     = regexp.MustCompile("`([^`\n]+)`")
	testName = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz|Example)[A-Z]\w*`)
	goTest   = regexp.MustCompile(`go test [^\n;&|]*(?:\|[^\n;&]*'[^\n]*)?`)
	runFlag  = regexp.MustCompile(`-(run|bench) ('[^']*'|\S+)`)
	pkgArg   = regexp.MustCompile(`(?:^|\s)(\./[^\s']*)`)
	makeCmd  = regexp.MustCompile(`\bmake ([a-z][a-z0-9-]*)`)
	goIdent  = regexp.MustCompile(`^([a-z][a-z0-9]*)((?:\.[A-Z]\w*)+)$`)
	repoPath = regexp.MustCompile(`^[a-z][\w.-]*/[\w.<>*/-]*$`)
	heading  = regexp.MustCompile(`(?m)^#+ (.*)$`)
	target   = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)
	marker   = regexp.MustCompile(`\((\d+)\)`)
	step     = regexp.MustCompile(`(?m)^(\d+)\. `)
	// qualified is a package's directory and one of its identifiers:
	// reference/staticpod.Monitor.
	qualified = regexp.MustCompile(`^([a-z][\w/-]*)\.([A-Z]\w*(?:\.[A-Z]\w*)?)$`)
	// htmlAnchor is an anchor a page sets itself, as generated pages do.
	htmlAnchor = regexp.MustCompile(`<a id="([^"]+)"></a>`)
	// placeholder stands for every mechanism in a path.
	placeholder = regexp.MustCompile(`<(?:name|mechanism)>`)
)

// code is a page's code: its fenced blocks and its code spans.
func code(page string) (blocks, spans []string) {
	for _, m := range fence.FindAllStringSubmatch(page, -1) {
		blocks = append(blocks, m[1])
	}
	prose := fence.ReplaceAllString(page, "")
	for _, m := range span.FindAllStringSubmatch(prose, -1) {
		spans = append(spans, m[1])
	}
	return blocks, spans
}

func TestPagesNameWhatExists(t *testing.T) {
	idx := index(t)
	mechs := mechanisms(t)
	// checked counts what the pages name, by sort: a sort the pages name
	// none of means its pattern went blind, and would pass anything.
	checked := map[string]int{}
	for name, page := range pages(t) {
		t.Run(name, func(t *testing.T) {
			checked["link"] += checkLinks(t, name, page)
			blocks, spans := code(page)
			all := append(slices.Clone(blocks), spans...)
			for _, c := range all {
				for _, n := range testName.FindAllString(c, -1) {
					checked["test"]++
					// A test a page writes for its reader is its own.
					if !idx.tests[n] && !strings.Contains(page, "func "+n+"(") {
						t.Errorf("names %s, which no test file declares", n)
					}
				}
				for _, m := range makeCmd.FindAllStringSubmatch(c, -1) {
					checked["make target"]++
					if !idx.makeTargets[m[1]] {
						t.Errorf("names make %s, which the Makefile has no target for", m[1])
					}
				}
				for _, cmd := range goTest.FindAllString(c, -1) {
					checked["go test command"]++
					checkGoTest(t, idx, cmd)
				}
			}
			for _, s := range spans {
				if m := goIdent.FindStringSubmatch(s); m != nil && len(idx.packages[m[1]]) > 0 {
					checked["identifier"]++
					if !idx.declared(m[1], strings.Split(m[2][1:], ".")) {
						t.Errorf("names %s, which package %s does not declare", s, m[1])
					}
				}
				if repoPath.MatchString(s) && idx.topDirs[strings.SplitN(s, "/", 2)[0]] {
					checked["path"]++
					checkPath(t, idx, s, mechs)
				}
			}
		})
	}
	for _, sort := range []string{"link", "test", "make target", "go test command", "identifier", "path"} {
		if checked[sort] == 0 {
			t.Errorf("the pages name no %s this test recognises", sort)
		}
	}
	t.Logf("checked %v", checked)
}

// checkLinks fails a relative link to a file or heading that does not
// exist and counts the links.
func checkLinks(t *testing.T, name, page string) int {
	t.Helper()
	prose := span.ReplaceAllString(fence.ReplaceAllString(page, ""), "")
	links := link.FindAllStringSubmatch(prose, -1)
	for _, m := range links {
		ref := m[1]
		if strings.Contains(ref, "://") || strings.HasPrefix(ref, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(ref, "#")
		rel := name
		if file != "" {
			rel = path.Clean(path.Join(path.Dir(name), file))
		}
		if info, err := os.Stat(filepath.Join(root, rel)); err == nil && info.IsDir() && anchor == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("links %s: %v", ref, err)
			continue
		}
		if anchor != "" && !slices.Contains(anchors(string(data)), anchor) {
			t.Errorf("links %s: %s has no heading with that anchor", ref, rel)
		}
	}
	return len(links)
}

// anchors are a Markdown page's heading anchors as GitHub makes them
// (lower case, punctuation dropped, spaces as hyphens, repeats numbered)
// and the anchors it sets with <a id>.
func anchors(page string) []string {
	seen := map[string]int{}
	var out []string
	for _, m := range heading.FindAllStringSubmatch(fence.ReplaceAllString(page, ""), -1) {
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, a+"-"+strconv.Itoa(n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// checkGoTest fails a `go test` command whose -run or -bench pattern
// matches nothing in a package it names.
func checkGoTest(t *testing.T, idx *repo, cmd string) {
	t.Helper()
	var dirs []string
	flags := runFlag.FindAllStringSubmatch(cmd, -1)
	for _, m := range pkgArg.FindAllStringSubmatch(cmd, -1) {
		for _, d := range expand(strings.TrimRight(m[1], ",")) {
			d = strings.TrimSuffix(strings.TrimPrefix(d, "./"), "/")
			if tree, ok := strings.CutSuffix(d, "..."); ok { // a tree: it exists; patterns are not held to it
				if _, err := os.Stat(filepath.Join(root, tree)); err != nil {
					t.Errorf("%q: %v", cmd, err)
				}
				continue
			}
			if _, ok := idx.funcs[d]; !ok {
				t.Errorf("%q: no package %s", cmd, d)
				continue
			}
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 && len(flags) > 0 {
		t.Errorf("%q names no package to look for its patterns in", cmd)
	}
	for _, m := range flags {
		// A subtest's or sub-benchmark's pattern is held by its top level.
		pat, _, _ := strings.Cut(strings.Trim(m[2], "'"), "/")
		if pat == "^$" {
			continue
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			t.Errorf("%q: -%s %s: %v", cmd, m[1], pat, err)
			continue
		}
		prefix := map[string]string{"run": "Test", "bench": "Benchmark"}[m[1]]
		for _, d := range dirs {
			if !slices.ContainsFunc(idx.funcs[d], func(f string) bool { return strings.HasPrefix(f, prefix) && re.MatchString(f) }) {
				t.Errorf("%q: -%s %s matches no %s function of %s", cmd, m[1], pat, prefix, d)
			}
		}
	}
}

// expand expands one level of shell braces: a/{b,c} is a/b and a/c.
func expand(s string) []string {
	open, end := strings.Index(s, "{"), strings.Index(s, "}")
	if open < 0 || end < open {
		return []string{s}
	}
	var out []string
	for _, alt := range strings.Split(s[open+1:end], ",") {
		out = append(out, s[:open]+alt+s[end+1:])
	}
	return out
}

// checkPath fails a repository path that does not exist; <name> stands
// for every mechanism, a * for any name.
func checkPath(t *testing.T, idx *repo, p string, mechs []string) {
	t.Helper()
	if m := qualified.FindStringSubmatch(p); m != nil {
		if !idx.declares(m[1], strings.Split(m[2], ".")) {
			t.Errorf("names %s, which %s does not declare", p, m[1])
		}
		return
	}
	names := []string{p}
	if placeholder.MatchString(p) {
		names = nil
		for _, m := range mechs {
			names = append(names, placeholder.ReplaceAllString(p, m))
		}
	}
	for _, n := range names {
		found, err := filepath.Glob(filepath.Join(root, n))
		if err != nil || len(found) == 0 {
			t.Errorf("names %s, which does not exist", n)
		}
	}
}
