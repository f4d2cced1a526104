package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

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

// declared is whether a package named pkg (several directories may share
// a name: five hold package rules) declares the path: Name, Type.Member,
// or a method Name of one of its types.
func (r *repo) declared(pkg string, names []string) bool {
	return slices.ContainsFunc(r.packages[pkg], func(dir string) bool { return r.declares(dir, names) })
}

func (r *repo) declares(dir string, names []string) bool {
	if len(names) > 2 {
		return false
	}
	want := strings.Join(names, ".")
	for d := range r.decls[dir] {
		if d == want || len(names) == 1 && strings.HasSuffix(d, "."+want) {
			return true
		}
	}
	return false
}

func index(t *testing.T) *repo {
	t.Helper()
	r := &repo{packages: map[string][]string{}, decls: map[string]map[string]bool{}, funcs: map[string][]string{},
		tests: map[string]bool{}, makeTargets: map[string]bool{}, topDirs: map[string]bool{}}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	// What a build or a run writes (bin/, dist/, reports: .gitignore's
	// top-level directories) is there or not: a page's path into it is
	// not held to this checkout.
	ignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && !strings.HasPrefix(name, ".") && !slices.Contains(strings.Split(string(ignore), "\n"), "/"+name+"/") {
			r.topDirs[name] = true
		}
	}
	_, files := sources(t)
	for _, src := range files {
		f, dir := src.file, path.Dir(src.rel)
		if strings.HasSuffix(src.rel, "_test.go") {
			for _, decl := range f.Decls {
				if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
					r.funcs[dir] = append(r.funcs[dir], fn.Name.Name)
					if testName.MatchString(fn.Name.Name) {
						r.tests[fn.Name.Name] = true
					}
				}
			}
			continue
		}
		if r.decls[dir] == nil {
			r.decls[dir] = map[string]bool{}
			r.packages[f.Name.Name] = append(r.packages[f.Name.Name], dir)
			if _, ok := r.funcs[dir]; !ok {
				r.funcs[dir] = nil
			}
		}
		declare(r.decls[dir], f)
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
			if id := receiverType(d.Recv.List[0].Type); id != nil {
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
	fields := memberList(e)
	if fields == nil {
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
