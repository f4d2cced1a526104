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

// The capability table (opcert mechanisms) says what the code does: a form
// is ✔ iff the subjects of that form are taken (an exec: and a
// deployment: subject resolve, a team's reconciler is not refused), a
// mechanism whose role takes a Deployment says what a run on a cluster
// touches, and watch and stream are ✔ iff the mechanism can be recorded
// and has facts readable one event at a time.
func TestCapabilitiesFollowTheCode(t *testing.T) {
	ms, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	rows := conformance.Capabilities(ms)
	i := 0
	for _, m := range ms {
		for _, r := range m.Roles {
			row := rows[i]
			i++
			if row.Mechanism != m.Name || row.Role != r.Name || len(row.Cells) != len(conformance.Columns) {
				t.Fatalf("row %d is %s.%s with %d cells, want %s.%s with %d", i, row.Mechanism, row.Role, len(row.Cells), m.Name, r.Name, len(conformance.Columns))
			}
			can := map[string]bool{}
			for _, c := range row.Cells {
				can[c.Column] = c.Can
			}
			_, execErr := m.Subjects(map[string]string{r.Name: "exec:/bin/true"})
			_, deployErr := m.Subjects(map[string]string{r.Name: "deployment:operators/{name}-operator"})
			team := conformance.Cast{r.Name: {Name: "team", Impl: conformance.Reconciler{}}}
			for column, works := range map[string]bool{
				string(conformance.FormProcess): execErr == nil,
				string(conformance.FormCluster): deployErr == nil,
				string(conformance.FormLibrary): m.Refuses(team) == nil,
				conformance.CannotWatch:         m.Recording != nil,
				conformance.CannotStream:        len(m.Online) > 0,
			} {
				if can[column] != works {
					t.Errorf("%s.%s %s: the table says %t, the code %t", m.Name, r.Name, column, can[column], works)
				}
			}
			if can[string(conformance.FormCluster)] && m.Touches == nil {
				t.Errorf("%s.%s takes a Deployment, but %s does not say what a run on a cluster touches (Mechanism.Touches)", m.Name, r.Name, m.Name)
			}
		}
	}
	if i != len(rows) {
		t.Errorf("%d rows for %d roles", len(rows), i)
	}
}

// Every ✘ of the table has the mechanism's reason, and no reason is given
// for what a role or a mechanism can do (a reason left behind when a cell
// was filled).
func TestEveryNoHasAReason(t *testing.T) {
	ms, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range conformance.Capabilities(ms) {
		for _, c := range row.Cells {
			if !c.Can && c.Why == "" {
				t.Errorf("%s.%s cannot %s, and says not why (Role.Cannot, Mechanism.Cannot)", row.Mechanism, row.Role, c.Column)
			}
		}
	}
	for _, m := range ms {
		for _, r := range m.Roles {
			for f := range r.Cannot {
				if r.Takes(f) || !slices.Contains(conformance.AllForms, f) {
					t.Errorf("%s.%s gives a reason for %q, which it takes or which is no form", m.Name, r.Name, f)
				}
			}
		}
		for key := range m.Cannot {
			if key == conformance.CannotWatch && m.Recording != nil || key == conformance.CannotStream && len(m.Online) > 0 ||
				key != conformance.CannotWatch && key != conformance.CannotStream {
				t.Errorf("%s gives a reason for %q, which it can do or which is no capability", m.Name, key)
			}
		}
	}
}
