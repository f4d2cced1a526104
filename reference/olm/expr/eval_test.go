package expr

import (
	"reflect"
	"testing"
)

// TestEvalTruthTable checks every row of the package doc's truth table.
func TestEvalTruthTable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		x, y Value
		want Value
	}{
		{"!X", True, Unknown, False},
		{"!X", False, Unknown, True},
		{"!X", Unknown, Unknown, Unknown},

		{"X && Y", True, True, True},
		{"X && Y", True, False, False},
		{"X && Y", True, Unknown, Unknown},
		{"X && Y", False, True, False},
		{"X && Y", False, False, False},
		{"X && Y", False, Unknown, False},
		{"X && Y", Unknown, True, Unknown},
		{"X && Y", Unknown, False, False},
		{"X && Y", Unknown, Unknown, Unknown},

		{"X || Y", True, True, True},
		{"X || Y", True, False, True},
		{"X || Y", True, Unknown, True},
		{"X || Y", False, True, True},
		{"X || Y", False, False, False},
		{"X || Y", False, Unknown, Unknown},
		{"X || Y", Unknown, True, True},
		{"X || Y", Unknown, False, Unknown},
		{"X || Y", Unknown, Unknown, Unknown},
	} {
		e, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		values := map[string]Value{"X": tc.x, "Y": tc.y}
		if got := Eval(e, func(c string) Value { return values[c] }); got != tc.want {
			t.Errorf("%s with X=%v, Y=%v: %v, want %v", tc.in, tc.x, tc.y, got, tc.want)
		}
	}
}

// The Foo CR of 002 §Example Workflow: four conditions, all True.
var seedCR = map[string]string{
	"Migrating":          "True",
	"UnhealthyDatabase":  "True",
	"BadConnectivity":    "True",
	"SomethingUnrelated": "True",
}

func TestEval(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         string
		conditions map[string]string // type -> status; a missing type is absent
		want       Value
	}{
		{"seed CR: migrating, so not upgradeable", "!Migrating", seedCR, False},
		{"seed CR: neither type present, cannot be calculated", "FinishedMigrating && ReadyToGo", seedCR, Unknown},
		{"seed CR: both important types True", "BadConnectivity || UnhealthyDatabase", seedCR, True},
		{"migration done", "!Migrating", map[string]string{"Migrating": "False"}, True},
		{"no conditions yet", "!Migrating", nil, Unknown},
		{"status Unknown", "!Migrating", map[string]string{"Migrating": "Unknown"}, Unknown},
		{"status neither True nor False", "!Migrating", map[string]string{"Migrating": "true"}, Unknown},
		{"one missing, the other False decides", "FinishedMigrating && ReadyToGo", map[string]string{"ReadyToGo": "False"}, False},
		{"both True", "FinishedMigrating && ReadyToGo", map[string]string{"FinishedMigrating": "True", "ReadyToGo": "True"}, True},
		{"prefixed type", "!foo.example.com/Migrating", map[string]string{"foo.example.com/Migrating": "False"}, True},
		{"precedence", "A || B && !C", map[string]string{"A": "False", "B": "True", "C": "False"}, True},
		{"parentheses", "(A || B) && !C", map[string]string{"A": "True", "C": "True"}, False},
	} {
		e, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		status := func(c string) Value { return ValueOf(tc.conditions[c]) }
		if got := Eval(e, status); got != tc.want {
			t.Errorf("%s: %s = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestEvalAsks checks that a decided side keeps the other from being asked.
func TestEvalAsks(t *testing.T) {
	for _, tc := range []struct {
		in     string
		values map[string]Value
		asked  []string
	}{
		{"A && B", map[string]Value{"A": False}, []string{"A"}},
		{"A && B", map[string]Value{"A": Unknown}, []string{"A", "B"}},
		{"A || B", map[string]Value{"A": True}, []string{"A"}},
		{"A || B", map[string]Value{"A": False}, []string{"A", "B"}},
		{"!A || B && C", map[string]Value{"A": True, "B": False}, []string{"A", "B"}},
	} {
		e, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		var asked []string
		Eval(e, func(c string) Value { asked = append(asked, c); return tc.values[c] })
		if !reflect.DeepEqual(asked, tc.asked) {
			t.Errorf("%s with %v asked %v, want %v", tc.in, tc.values, asked, tc.asked)
		}
	}
}

func TestValue(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   Value
		text   string
	}{
		{"True", True, "True"},
		{"False", False, "False"},
		{"Unknown", Unknown, "Unknown"},
		{"", Unknown, "Unknown"},
		{"true", Unknown, "Unknown"},
	} {
		got := ValueOf(tc.status)
		if got != tc.want || got.String() != tc.text {
			t.Errorf("ValueOf(%q) = %v (%d), want %s", tc.status, got, int(got), tc.text)
		}
	}
	if s := Value(7).String(); s != "Value(7)" {
		t.Errorf("Value(7).String() = %q", s)
	}
	if v := Value(0); v != Unknown {
		t.Errorf("the zero Value is %v, want Unknown", v)
	}
}

func TestVars(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"!Migrating", []string{"Migrating"}},
		{"BadConnectivity || UnhealthyDatabase", []string{"BadConnectivity", "UnhealthyDatabase"}},
		{"B && A || !B && (C || A)", []string{"B", "A", "C"}},
		{"x.io/A || A || x.io/A", []string{"x.io/A", "A"}},
	} {
		e, err := Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Vars(e); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Vars(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// foreign is an Expr this package did not make.
type foreign struct{}

func (foreign) String() string { return "foreign" }

func TestForeignExprPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Eval": func() { Eval(And{Ident{"A"}, foreign{}}, func(string) Value { return True }) },
		"Vars": func() { Vars(Or{Ident{"A"}, foreign{}}) },
	} {
		func() {
			defer func() {
				if r := recover(); r != "expr: expr.foreign is not an expression of this package" {
					t.Errorf("%s of a foreign Expr: recovered %v", name, r)
				}
			}()
			f()
		}()
	}
}
