package componentoperator

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The example is an operator opcert did not write: no file of it but its
// tests imports an opcert package (its own excepted).
func TestImportsNothingOfOpcert(t *testing.T) {
	const module, self = "github.com/opcert/opcert/", "github.com/opcert/opcert/examples/componentoperator"
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		files++
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) && p != self && !strings.HasPrefix(p, self+"/") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil || files < 5 {
		t.Fatalf("%d files read: %v", files, err)
	}
}
