package faithful

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// contract is what this package may use of reference/staticpod: the types
// and constants of the harness's contract with a core (a view, a decision,
// its operations), never a decision, a step, a back-off or a text.
var contract = []string{
	"MonitorParams", "MonitorView", "MonitorDecision", "Observation", "Mirror", "Op", "Reason",
	"OperatorParams", "OperatorDecision", "Fallback", "Node", "Condition",
	"Wait", "FallBack", "Ready", "OK", "Failed",
	"TakeLock", "ReleaseLock", "WriteManifest", "RemoveManifest", "LinkLastKnownGood", "Operand", "StartupMonitor",
}

// The variants are the seed read again: they use nothing of the reference
// but the contract.
func TestOnlyTheContractOfTheReference(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, isID := sel.X.(*ast.Ident); isID && id.Name == "sp" && !slices.Contains(contract, sel.Sel.Name) {
				t.Errorf("%s: uses sp.%s, which is the reference's, not the contract", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}
