package all_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/opcert/opcert/conformance"
	_ "github.com/opcert/opcert/conformance/all"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/scenarios"
)

const module = "github.com/opcert/opcert/"

// Every mechanism's package (conformance/<name>/mechanism.go) is imported
// here, so that neither opcert nor certify can miss one, and each one
// registered both its plug-in and its scenario kind.
func TestEveryMechanismIsRegistered(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "all.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imported = append(imported, p)
	}
	dirs, err := filepath.Glob("../*/mechanism.go")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no mechanism found beside conformance/all (%v)", err)
	}
	for _, d := range dirs {
		pkg := module + "conformance/" + filepath.Base(filepath.Dir(d))
		if !slices.Contains(imported, pkg) {
			t.Errorf("conformance/all does not import %s", pkg)
		}
	}
	var kinds []string
	for _, k := range scenarios.Kinds() {
		kinds = append(kinds, k.Mechanism)
	}
	for _, p := range conformance.Plugins() {
		if !slices.Contains(kinds, p.Name) {
			t.Errorf("mechanism %s registered no scenario kind", p.Name)
		}
	}
	if len(conformance.Plugins()) != len(dirs) || len(kinds) != len(dirs) {
		t.Errorf("%d mechanism packages, %d plug-ins, %d scenario kinds registered", len(dirs), len(conformance.Plugins()), len(kinds))
	}
}

// The capability table (opcert mechanisms) says what each registered
// mechanism's code does, and why it cannot do the rest.
func TestCapabilities(t *testing.T) {
	ms, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		conformancetest.Capabilities(t, m)
	}
}
