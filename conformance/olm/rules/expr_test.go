package rules

import (
	"strings"
	"testing"
)

// The evaluator against Kleene's tables (decision 002,
// conformance/olm/README.md): every pair of values through every operator.
func TestEvalTruthTables(t *testing.T) {
	statuses := map[truth]string{tFalse: statusFalse, tUnknown: statusUnknown, tTrue: statusTrue}
	and := map[[2]truth]truth{}
	or := map[[2]truth]truth{}
	for _, a := range []truth{tFalse, tUnknown, tTrue} {
		for _, b := range []truth{tFalse, tUnknown, tTrue} {
			// Written out case by case, not as min and max, so that the
			// table checks the evaluator rather than restating it.
			switch {
			case a == tFalse || b == tFalse:
				and[[2]truth{a, b}] = tFalse
			case a == tTrue && b == tTrue:
				and[[2]truth{a, b}] = tTrue
			default:
				and[[2]truth{a, b}] = tUnknown
			}
			switch {
			case a == tTrue || b == tTrue:
				or[[2]truth{a, b}] = tTrue
			case a == tFalse && b == tFalse:
				or[[2]truth{a, b}] = tFalse
			default:
				or[[2]truth{a, b}] = tUnknown
			}
		}
	}
	tests := []struct {
		expr string
		want func(a, b truth) truth
	}{
		{"A && B", func(a, b truth) truth { return and[[2]truth{a, b}] }},
		{"A || B", func(a, b truth) truth { return or[[2]truth{a, b}] }},
		{"!A", func(a, _ truth) truth { return map[truth]truth{tFalse: tTrue, tUnknown: tUnknown, tTrue: tFalse}[a] }},
		{"!!A", func(a, _ truth) truth { return a }},
	}
	for _, tc := range tests {
		p, err := compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		for a, sa := range statuses {
			for b, sb := range statuses {
				got := p.eval(func(typ string) string { return map[string]string{"A": sa, "B": sb}[typ] })
				if want := tc.want(a, b); got != want {
					t.Errorf("%s with A=%s B=%s: %s, want %s", tc.expr, a, b, got, want)
				}
			}
		}
	}
}

// Precedence, associativity, missing conditions and the seed's
// expressions (002 §Opting into OLM Supported Conditions, §Example
// Workflow).
func TestEval(t *testing.T) {
	tests := []struct {
		expr  string
		conds map[string]string
		want  truth
	}{
		{"!Migrating", map[string]string{"Migrating": statusTrue}, tFalse},
		{"!Migrating", map[string]string{"Migrating": statusFalse}, tTrue},
		{"!Migrating", nil, tUnknown},
		{"!Migrating", map[string]string{"Migrating": "Maybe"}, tUnknown},
		{"FinishedMigrating && ReadyToGo", map[string]string{"FinishedMigrating": statusTrue, "ReadyToGo": statusTrue}, tTrue},
		{"FinishedMigrating && ReadyToGo", map[string]string{"FinishedMigrating": statusTrue}, tUnknown},
		{"FinishedMigrating && ReadyToGo", map[string]string{"ReadyToGo": statusFalse}, tFalse},
		{"BadConnectivity || UnhealthyDatabase", map[string]string{"UnhealthyDatabase": statusTrue}, tTrue},
		{"BadConnectivity || UnhealthyDatabase", map[string]string{"UnhealthyDatabase": statusFalse}, tUnknown},
		// ! binds tighter than &&, && tighter than ||.
		{"!A && B", map[string]string{"A": statusFalse, "B": statusTrue}, tTrue},
		{"!(A && B)", map[string]string{"A": statusFalse, "B": statusTrue}, tTrue},
		{"!A && B", map[string]string{"A": statusTrue, "B": statusTrue}, tFalse},
		{"A || B && C", map[string]string{"A": statusTrue, "B": statusFalse, "C": statusFalse}, tTrue},
		{"(A || B) && C", map[string]string{"A": statusTrue, "B": statusFalse, "C": statusFalse}, tFalse},
		{"A && B || C", map[string]string{"A": statusFalse, "C": statusTrue}, tTrue},
		{"A&&!B||!(C)", map[string]string{"A": statusTrue, "B": statusFalse, "C": statusTrue}, tTrue},
		{"example.com/Ready && !k8s.io/Stale2", map[string]string{"example.com/Ready": statusTrue, "k8s.io/Stale2": statusFalse}, tTrue},
	}
	for _, tc := range tests {
		p, err := compile(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if got := p.eval(func(typ string) string { return tc.conds[typ] }); got != tc.want {
			t.Errorf("%s over %v: %s, want %s", tc.expr, tc.conds, got, tc.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"", "column 1: expected a condition type, '!' or '(', found end of expression"},
		{"Migrating &&", "column 13: expected a condition type, '!' or '(', found end of expression"},
		{"A B", `column 3: expected '&&', '||' or the end, found "B"`},
		{"(A || B", "column 8: expected '&&', '||' or ')', found end of expression"},
		{"A)", `column 2: expected '&&', '||' or the end, found ")"`},
		{"()", `column 2: expected a condition type, '!' or '(', found ")"`},
		{"A & B", `column 3: expected a condition type, an operator or a parenthesis, found "&"`},
		{"migrating", `column 1: expected a condition type (CamelCase or prefix/CamelCase), found "migrating"`},
		{"Example.com/Ready", `column 1: expected a condition type`},
		{"/Ready", `column 1: expected a condition type`},
		{"A_B", `column 2: expected a condition type, an operator or a parenthesis, found "_"`},
	}
	for _, tc := range tests {
		_, err := compile(tc.expr)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %s", tc.expr, err, tc.want)
		}
	}
}

// Important's ||-only rule (002 §Example Workflow): an expression with &&
// or ! is not the seed's, and OLM-002 leaves what is listed for it open.
func TestImportantOnlyOr(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"BadConnectivity || UnhealthyDatabase", ""},
		{"(A || B) || C", ""},
		{"A && B", `column 3: expected '||' (an Important expression may only use ||), found "&&"`},
		{"!A", `column 1: expected '||'`},
	}
	for _, tc := range tests {
		p, err := compile(tc.expr)
		if err != nil {
			t.Fatalf("%q: %v", tc.expr, err)
		}
		got := ""
		if err := p.onlyOr(); err != nil {
			got = err.Error()
		}
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.expr, got, tc.want)
		}
	}
}
