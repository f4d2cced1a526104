// Package concepts_test holds the concept pages (docs/concepts/*.md) and
// the development page (docs/development.md) to the repository they
// describe: every link leads to a file (and heading) that exists, every
// test, benchmark and fuzz target they name is declared, every command
// `go test ... -run/-bench X` names a package that has a match for X,
// every `make` target is the Makefile's, every Go identifier written as
// `pkg.Name` or `pkg.Type.Member` is declared, and every repository path
// exists. A page that drifts from the code fails here, not in a reader's
// hands. Adding a mechanism's checklist is held to the toy mechanism too
// (TestAddingAMechanismIsTheToys).
package concepts_test

import (
	"go/ast"
	"go/parser"
	"go/token"
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
const root = "../.."

// planned are the pages other parts of the documentation add (the agreed
// layout of docs/); a link to one is accepted while it does not exist.
var planned = []string{
	"docs/README.md",
	"docs/getting-started.md",
	"docs/install.md",
	"docs/guides/*.md",
	"docs/reference/scenarios.md",
}

// pages are the pages this test holds, by path from the root.
func pages(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(root, "docs/concepts/*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append(names, filepath.Join(root, "docs/development.md"))
	out := map[string]string{}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, n)
		out[filepath.ToSlash(rel)] = string(data)
	}
	if len(out) < 2 {
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
	makeCmd  = regexp.MustCompile(`\bmake ([a-z][a-z-]*)`)
	goIdent  = regexp.MustCompile(`^([a-z][a-z0-9]*)((?:\.[A-Z]\w*)+)$`)
	repoPath = regexp.MustCompile(`^[a-z][\w.-]*/[\w.<>*/-]*$`)
	heading  = regexp.MustCompile(`(?m)^#+ (.*)$`)
	target   = regexp.MustCompile(`(?m)^([a-z][a-z-]*):`)
	marker   = regexp.MustCompile(`\((\d+)\)`)
	step     = regexp.MustCompile(`(?m)^(\d+)\. `)
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
	for name, page := range pages(t) {
		t.Run(name, func(t *testing.T) {
			checkLinks(t, name, page)
			blocks, spans := code(page)
			all := append(slices.Clone(blocks), spans...)
			for _, c := range all {
				for _, n := range testName.FindAllString(c, -1) {
					if !idx.tests[n] {
						t.Errorf("names %s, which no test file declares", n)
					}
				}
				for _, m := range makeCmd.FindAllStringSubmatch(c, -1) {
					if !idx.makeTargets[m[1]] {
						t.Errorf("names make %s, which the Makefile has no target for", m[1])
					}
				}
				for _, cmd := range goTest.FindAllString(c, -1) {
					checkGoTest(t, idx, cmd)
				}
			}
			for _, s := range spans {
				if m := goIdent.FindStringSubmatch(s); m != nil && len(idx.packages[m[1]]) > 0 {
					if !idx.declared(m[1], strings.Split(m[2][1:], ".")) {
						t.Errorf("names %s, which package %s does not declare", s, m[1])
					}
				}
				if repoPath.MatchString(s) && idx.topDirs[strings.SplitN(s, "/", 2)[0]] {
					checkPath(t, s, mechs)
				}
			}
		})
	}
}

// checkLinks fails a relative link to a file or heading that does not
// exist (a planned page excepted).
func checkLinks(t *testing.T, name, page string) {
	t.Helper()
	for _, m := range link.FindAllStringSubmatch(page, -1) {
		ref := m[1]
		if strings.Contains(ref, "://") || strings.HasPrefix(ref, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(ref, "#")
		rel := name
		if file != "" {
			rel = path.Clean(path.Join(path.Dir(name), file))
		}
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			if !isPlanned(rel) {
				t.Errorf("links %s: %v", ref, err)
			}
			continue
		}
		if anchor != "" && !slices.Contains(anchors(string(data)), anchor) {
			t.Errorf("links %s: %s has no heading with that anchor", ref, rel)
		}
	}
}

func isPlanned(rel string) bool {
	return slices.ContainsFunc(planned, func(p string) bool {
		ok, _ := path.Match(p, rel)
		return ok
	})
}

// anchors are a Markdown page's heading anchors as GitHub makes them:
// lower case, punctuation dropped, spaces as hyphens, repeats numbered.
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
		pat := strings.Trim(m[2], "'")
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
func checkPath(t *testing.T, p string, mechs []string) {
	t.Helper()
	names := []string{p}
	if strings.Contains(p, "<name>") {
		names = nil
		for _, m := range mechs {
			names = append(names, strings.ReplaceAll(p, "<name>", m))
		}
	}
	for _, n := range names {
		found, err := filepath.Glob(filepath.Join(root, n))
		if err != nil || len(found) == 0 {
			if !isPlanned(n) {
				t.Errorf("names %s, which does not exist", n)
			}
		}
	}
}

// mechanisms are the mechanisms opcert ships: conformance/all's imports.
func mechanisms(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "conformance/all/all.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		out = append(out, path.Base(p))
	}
	if len(out) == 0 {
		t.Fatal("conformance/all imports no mechanism")
	}
	return out
}

// repo is what the pages may name: packages by name with their
// declarations, test functions, make targets and top directories.
type repo struct {
	packages    map[string][]string        // package name -> directories
	decls       map[string]map[string]bool // directory -> "Name" and "Type.Member"
	funcs       map[string][]string        // directory -> its test files' top-level functions
	tests       map[string]bool
	makeTargets map[string]bool
	topDirs     map[string]bool
}

// declared is whether package pkg declares the path (Name, or Type and
// Member) in exactly one directory of that name.
func (r *repo) declared(pkg string, names []string) bool {
	dirs := r.packages[pkg]
	if len(dirs) != 1 || len(names) > 2 {
		return false
	}
	return r.decls[dirs[0]][strings.Join(names, ".")]
}

func index(t *testing.T) *repo {
	t.Helper()
	r := &repo{packages: map[string][]string{}, decls: map[string]map[string]bool{}, funcs: map[string][]string{},
		tests: map[string]bool{}, makeTargets: map[string]bool{}, topDirs: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "hack" || rel == "bin") {
				return filepath.SkipDir
			}
			if rel != "." && !strings.Contains(rel, "/") {
				r.topDirs[rel] = true
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := path.Dir(rel)
		if strings.HasSuffix(p, "_test.go") {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
					r.funcs[dir] = append(r.funcs[dir], fn.Name.Name)
					if testName.MatchString(fn.Name.Name) {
						r.tests[fn.Name.Name] = true
					}
				}
			}
			return nil
		}
		if r.decls[dir] == nil {
			r.decls[dir] = map[string]bool{}
			r.packages[f.Name.Name] = append(r.packages[f.Name.Name], dir)
			if _, ok := r.funcs[dir]; !ok {
				r.funcs[dir] = nil
			}
		}
		declare(r.decls[dir], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range target.FindAllStringSubmatch(string(makefile), -1) {
		r.makeTargets[m[1]] = true
	}
	return r
}

// declare records a file's top-level names, its types' fields and
// interface methods, and its methods by receiver type.
func declare(into map[string]bool, f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				into[d.Name.Name] = true
				continue
			}
			recv := d.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			switch x := recv.(type) {
			case *ast.IndexExpr:
				recv = x.X
			case *ast.IndexListExpr:
				recv = x.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				into[id.Name+"."+d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					into[s.Name.Name] = true
					members(into, s.Name.Name, s.Type)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						into[n.Name] = true
					}
				}
			}
		}
	}
}

func members(into map[string]bool, typ string, e ast.Expr) {
	var fields *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			into[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // an embedded type is a member by its name
			t := f.Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			switch x := t.(type) {
			case *ast.Ident:
				into[typ+"."+x.Name] = true
			case *ast.SelectorExpr:
				into[typ+"."+x.Sel.Name] = true
			}
		}
	}
}

// The checklist of adding a mechanism is the toy mechanism's: a step the
// page marks *toy* is marked (N) in toy_test.go's comments, and no other.
func TestAddingAMechanismIsTheToys(t *testing.T) {
	page, err := os.ReadFile("adding-a-mechanism.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(page), "\n## Checklist\n")
	if !ok {
		t.Fatal("adding-a-mechanism.md has no Checklist section")
	}
	list, _, _ = strings.Cut(list, "\n## ")
	want := map[string]bool{}
	starts := step.FindAllStringSubmatchIndex(list, -1)
	if len(starts) < 6 {
		t.Fatalf("the checklist has %d steps", len(starts))
	}
	for i, s := range starts {
		n := list[s[2]:s[3]]
		if n != strconv.Itoa(i+1) {
			t.Errorf("step %d is numbered %s", i+1, n)
		}
		end := len(list)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		if first, _, _ := strings.Cut(list[s[0]:end], "\n"); strings.Contains(first, "(*toy*)") {
			want[n] = true
		}
	}
	toy, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "conformance/conformancetest/toy_test.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, g := range toy.Comments {
		for _, m := range marker.FindAllStringSubmatch(g.Text(), -1) {
			got[m[1]] = true
		}
	}
	for n := range want {
		if !got[n] {
			t.Errorf("step %s is marked *toy*, but toy_test.go marks no (%s)", n, n)
		}
	}
	for n := range got {
		if !want[n] {
			t.Errorf("toy_test.go marks (%s), a step the checklist does not mark *toy*", n)
		}
	}
}
