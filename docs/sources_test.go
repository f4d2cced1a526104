package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// source is one Go file of the module, parsed with its comments.
type source struct {
	rel  string // its path from the root, with slashes
	file *ast.File
}

var parsed struct {
	once  sync.Once
	fset  *token.FileSet
	files []source
	err   error
}

// sources are the module's Go files, tests included, parsed once for
// every test of the package: not testdata, hidden directories, reports
// left by runs (opcert-*), nor another module's code (hack/envtest,
// hack/release have their own go.mod).
func sources(t *testing.T) (*token.FileSet, []source) {
	t.Helper()
	parsed.once.Do(func() {
		parsed.fset = token.NewFileSet()
		parsed.err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				name := d.Name()
				if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || strings.HasPrefix(name, "opcert-") || isModule(p)) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".go") {
				return nil
			}
			f, err := parser.ParseFile(parsed.fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			parsed.files = append(parsed.files, source{rel: filepath.ToSlash(rel), file: f})
			return nil
		})
	})
	if parsed.err != nil {
		t.Fatal(parsed.err)
	}
	if len(parsed.files) < 100 {
		t.Fatalf("found %d Go files under %s, want the module's", len(parsed.files), root)
	}
	return parsed.fset, parsed.files
}

func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// receiverType is the name of a method's receiver type (T, *T, T[P],
// *T[P]), or nil where it is not a plain name.
func receiverType(t ast.Expr) *ast.Ident {
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
		case *ast.IndexExpr:
			t = x.X
		case *ast.IndexListExpr:
			t = x.X
		case *ast.Ident:
			return x
		default:
			return nil
		}
	}
}

// memberList is a struct type's fields or an interface type's methods;
// nil for any other type.
func memberList(t ast.Expr) *ast.FieldList {
	switch x := t.(type) {
	case *ast.StructType:
		return x.Fields
	case *ast.InterfaceType:
		return x.Methods
	}
	return nil
}
