package stackableoperator

import (
	"slices"
	"testing"
)

func TestNamespaces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil}, // every namespace
		{"r01-default", []string{"r01-default"}},
		{"r01-a, r01-b,", []string{"r01-a", "r01-b"}},
	} {
		if got := Namespaces(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Namespaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
