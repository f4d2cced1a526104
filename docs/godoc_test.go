package docs_test

import (
	"go/ast"
	"path"
	"strconv"
	"strings"
	"testing"
)

// TestEveryExportedIdentifierIsDocumented holds the module's godoc to what
// it lists: in every package but tests (examples and commands included),
// each package has a package comment, and each exported function, type,
// constant and variable, and each exported method of an exported type,
// has a doc comment (a const or var group's comment covers its names, a
// line comment a single spec), and so does each exported field of an
// exported struct and each method of an exported interface (the one above
// it or the one at its line's end). A reader of the godoc finds no entry
// that says nothing. No package is excepted: the module has no generated
// code.
func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	fset, files := sources(t)
	packageDoc := map[string]bool{} // directory -> a file of its package has the package comment
	var missing []string
	for _, src := range files {
		if strings.HasSuffix(src.rel, "_test.go") {
			continue
		}
		dir := path.Dir(src.rel)
		packageDoc[dir] = packageDoc[dir] || src.file.Doc != nil
		for _, name := range undocumented(src.file) {
			missing = append(missing, src.rel+":"+strconv.Itoa(fset.Position(name.Pos()).Line)+": "+name.Name)
		}
	}
	if len(packageDoc) < 20 {
		t.Fatalf("found %d packages, want the module's", len(packageDoc))
	}
	for dir, ok := range packageDoc {
		if !ok {
			t.Errorf("%s: the package has no package comment; say what it is for in one of its files", dir)
		}
	}
	for _, m := range missing {
		t.Errorf("%s is exported without a doc comment; say what it is for", m)
	}
}

// undocumented lists the exported names of f that godoc shows without a
// doc comment, with the exported fields of its exported structs and the
// methods of its exported interfaces that have none.
func undocumented(f *ast.File) []*ast.Ident {
	var out []*ast.Ident
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil && (d.Recv == nil || exportedReceiver(d.Recv.List[0].Type)) {
				out = append(out, d.Name)
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
						out = append(out, s.Name)
					}
					if s.Name.IsExported() {
						out = append(out, undocumentedMembers(s.Type)...)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && s.Comment == nil && d.Doc == nil {
							out = append(out, n)
						}
					}
				}
			}
		}
	}
	return out
}

// undocumentedMembers lists the exported fields of a struct type, or the
// methods of an interface type, that have neither a comment above them
// nor one at their line's end (embedded ones name no member of their own).
func undocumentedMembers(t ast.Expr) []*ast.Ident {
	list := memberList(t)
	if list == nil {
		return nil
	}
	var out []*ast.Ident
	for _, field := range list.List {
		for _, n := range field.Names {
			if n.IsExported() && field.Doc == nil && field.Comment == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// exportedReceiver tells whether a method's receiver type is exported
// (T, *T, T[P], *T[P]): godoc lists the methods of exported types only.
func exportedReceiver(t ast.Expr) bool {
	id := receiverType(t)
	return id != nil && id.IsExported()
}

// isModule tells whether dir holds a module of its own.
