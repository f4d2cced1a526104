package stackableoperator

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The example is an operator opcert did not write: none of its code
// outside tests may import a package of opcert's but its own.
func TestImportsNothingOfOpcert(t *testing.T) {
	const self = "github.com/opcert/opcert/examples/stackableoperator"
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "github.com/opcert/opcert") && p != self && !strings.HasPrefix(p, self+"/") {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("read %d files: %v", n, err)
	}
}
