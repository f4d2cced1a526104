// Package examples holds operators written the way a team writes one, for
// opcert's process- and cluster-mode tests and for teams to read. This test
// keeps them independent: an example that ran opcert's own code would prove
// nothing about an operator opcert did not write.
package examples

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/opcert/opcert/"

// An example's code (tests aside: they may certify it with package
// certify, as a team's would) imports no package of opcert's but its own.
func TestExamplesImportNothingOfOpcert(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		example := strings.SplitN(filepath.ToSlash(path), "/", 2)[0]
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			own := module + "examples/" + example
			if strings.HasPrefix(p, module) && p != own && !strings.HasPrefix(p, own+"/") {
				t.Errorf("%s imports %s: an example imports nothing of opcert's but its own packages", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no example's Go file was found")
	}
}
