package faithful

import (
	"slices"
	"testing"
)

// Kleene's three values over the seed's expressions: a missing or Unknown
// condition cannot be calculated, and only decides when the rest does not.
func TestEval(t *testing.T) {
	conds := map[string]string{"Migrating": "True", "Ready": "False", "Odd": "Unknown"}
	for _, tc := range []struct {
		expr string
		want value
	}{
		{"!Migrating", no},
		{"Ready || Migrating", yes},
		{"Ready && Missing", no},
		{"Missing || Odd", unknown},
		{"!(Ready || Odd)", unknown},
		{"!Ready && (Migrating || Missing)", yes},
		{"example.com/Thing || Migrating", yes},
	} {
		n, err := parse(tc.expr)
		if err != nil {
			t.Fatalf("%q: %v", tc.expr, err)
		}
		if got := n.eval(conds); got != tc.want {
			t.Errorf("%q = %d, want %d", tc.expr, got, tc.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "Migrating &&", "(Ready", "Ready)", "ready", "A || || B", "A ^ B"} {
		if _, err := parse(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

func TestTypesAndOnlyOr(t *testing.T) {
	n, _ := parse("BadConnectivity || (UnhealthyDatabase || BadConnectivity)")
	if got := n.types(); !slices.Equal(got, []string{"BadConnectivity", "UnhealthyDatabase"}) || !n.onlyOr() {
		t.Errorf("types %q, onlyOr %v", got, n.onlyOr())
	}
	if n, _ := parse("A && !B"); n.onlyOr() {
		t.Error("A && !B is ||-only")
	}
}
