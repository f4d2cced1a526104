package main

import (
	"slices"
	"testing"
)

// The seed's expressions, in three values: a condition missing or Unknown
// is unknown, which "cannot be calculated" (002 §Test Plan).
func TestEval(t *testing.T) {
	status := map[string]string{"Migrating": "True", "Ready": "False", "Odd": "Unknown", "foo.example.com/Synced": "True"}
	for _, tc := range []struct {
		expr string
		want truth
	}{
		{"!Migrating", no},
		{"!Ready", yes},
		{"!Absent", unknown},
		{"Odd", unknown},
		{"Ready && Absent", no},
		{"Migrating && Absent", unknown},
		{"Migrating || Absent", yes},
		{"Ready || Odd", unknown},
		{"!(Ready || Migrating)", no},
		{"Ready || foo.example.com/Synced", yes},
		{"Ready || Migrating && Ready", no}, // && binds tighter
	} {
		n, err := parse(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := n.eval(status); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.expr, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"", "Migrating &&", "(Migrating", "Migrating & Ready", "Migrating)", "!", "a/"} {
		if _, err := parse(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// Only types joined by || name what an Important expression lists.
func TestNames(t *testing.T) {
	for expr, want := range map[string][]string{"A || B || C": {"A", "B", "C"}, "A": {"A"}, "A && B": nil, "!A || B": nil} {
		n, err := parse(expr)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := n.names()
		if ok != (want != nil) || ok && !slices.Equal(got, want) {
			t.Errorf("%s: %v %v, want %v", expr, got, ok, want)
		}
	}
}
