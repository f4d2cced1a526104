package expr

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	a, b, c := Ident{"A"}, Ident{"B"}, Ident{"C"}
	for _, tc := range []struct {
		in    string
		want  Expr
		canon string // String() of the tree
	}{
		// The seed's examples (002 §Opting into OLM Supported Conditions, §Example Workflow).
		{"!Migrating", Not{Ident{"Migrating"}}, "!Migrating"},
		{"FinishedMigrating && ReadyToGo", And{Ident{"FinishedMigrating"}, Ident{"ReadyToGo"}}, "FinishedMigrating && ReadyToGo"},
		{"BadConnectivity || UnhealthyDatabase", Or{Ident{"BadConnectivity"}, Ident{"UnhealthyDatabase"}}, "BadConnectivity || UnhealthyDatabase"},
		// Types: digits after the initial, a DNS subdomain prefix.
		{"Ready2Go", Ident{"Ready2Go"}, "Ready2Go"},
		{"foo.example.com/Migrating", Ident{"foo.example.com/Migrating"}, "foo.example.com/Migrating"},
		{"a-1.b/X", Ident{"a-1.b/X"}, "a-1.b/X"},
		// Whitespace anywhere between tokens, none needed.
		{" \tA&&B\n||\r\n!C ", Or{And{a, b}, Not{c}}, "A && B || !C"},
		// Precedence: ! over && over ||.
		{"A || B && C", Or{a, And{b, c}}, "A || B && C"},
		{"A && B || C", Or{And{a, b}, c}, "A && B || C"},
		{"!A && B", And{Not{a}, b}, "!A && B"},
		{"!!A", Not{Not{a}}, "!!A"},
		// Left-associative; right nesting keeps its parentheses.
		{"A || B || C", Or{Or{a, b}, c}, "A || B || C"},
		{"A && B && C", And{And{a, b}, c}, "A && B && C"},
		{"A || (B || C)", Or{a, Or{b, c}}, "A || (B || C)"},
		{"A && (B && C)", And{a, And{b, c}}, "A && (B && C)"},
		// Parentheses that change the tree stay, redundant ones go.
		{"(A || B) && C", And{Or{a, b}, c}, "(A || B) && C"},
		{"A && (B || C)", And{a, Or{b, c}}, "A && (B || C)"},
		{"!(A && B)", Not{And{a, b}}, "!(A && B)"},
		{"!(A || B)", Not{Or{a, b}}, "!(A || B)"},
		{"((A))", a, "A"},
		{"(A && B) || C", Or{And{a, b}, c}, "A && B || C"},
		{"A || (B && C)", Or{a, And{b, c}}, "A || B && C"},
		{"(!A)", Not{a}, "!A"},
		{"!(!A)", Not{Not{a}}, "!!A"},
		{"(A || B) || C", Or{Or{a, b}, c}, "A || B || C"},
		{strings.Repeat("(", maxDepth) + "A" + strings.Repeat(")", maxDepth), a, "A"},
		{strings.Repeat("!", maxDepth) + "A", nest(maxDepth, a), strings.Repeat("!", maxDepth) + "A"},
	} {
		got, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
		if s := got.String(); s != tc.canon {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.in, s, tc.canon)
		}
	}
}

// nest wraps x in n Nots.
func nest(n int, x Expr) Expr {
	for range n {
		x = Not{x}
	}
	return x
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "column 1: expected a condition type or '(' or '!', found end of expression"},
		{"  ", "column 3: expected a condition type or '(' or '!', found end of expression"},
		{"migrating", "column 1: expected a condition type or '(' or '!', found 'migrating' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"!migrating", "column 2: expected a condition type or '(' or '!', found 'migrating' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"9Lives", "column 1: expected a condition type or '(' or '!', found '9Lives' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"Ready_To_Go", "column 1: expected a condition type or '(' or '!', found 'Ready_To_Go' (not CamelCase: a condition type has only letters and digits)"},
		{"A && Foo-Bar", "column 6: expected a condition type or '(' or '!', found 'Foo-Bar' (not CamelCase: a condition type has only letters and digits)"},
		{"Foo.example.com/A", "column 1: expected a condition type or '(' or '!', found 'Foo.example.com/A' (the prefix 'Foo.example.com' is not a DNS subdomain)"},
		{"/A", "column 1: expected a condition type or '(' or '!', found '/A' (the prefix '' is not a DNS subdomain)"},
		{"example.com/", "column 1: expected a condition type or '(' or '!', found 'example.com/' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"example.com/a", "column 1: expected a condition type or '(' or '!', found 'example.com/a' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"a/b/C", "column 1: expected a condition type or '(' or '!', found 'a/b/C' (not CamelCase: a condition type starts with an upper-case letter)"},
		{"a/B/C", "column 1: expected a condition type or '(' or '!', found 'a/B/C' (not CamelCase: a condition type has only letters and digits)"},
		{"A & B", "column 3: expected '&&' or '||' or the end, found '&'"},
		{"A | B", "column 3: expected '&&' or '||' or the end, found '|'"},
		{"A &&& B", "column 5: expected a condition type or '(' or '!', found '&'"},
		{"A && || B", "column 6: expected a condition type or '(' or '!', found '||'"},
		{"A &&", "column 5: expected a condition type or '(' or '!', found end of expression"},
		{"|| A", "column 1: expected a condition type or '(' or '!', found '||'"},
		{"A B", "column 3: expected '&&' or '||' or the end, found 'B'"},
		{"A !B", "column 3: expected '&&' or '||' or the end, found '!'"},
		{"A)", "column 2: expected '&&' or '||' or the end, found ')'"},
		{"(A", "column 3: expected '&&' or '||' or ')', found end of expression"},
		{"(A B)", "column 4: expected '&&' or '||' or ')', found 'B'"},
		{"((A)", "column 5: expected '&&' or '||' or ')', found end of expression"},
		{"()", "column 2: expected a condition type or '(' or '!', found ')'"},
		{"!", "column 2: expected a condition type or '(' or '!', found end of expression"},
		{"A == B", "column 3: expected '&&' or '||' or the end, found '='"},
		{"A\x00", "column 2: expected '&&' or '||' or the end, found '\\x00'"},
		{"Ä", "column 1: expected a condition type or '(' or '!', found 'Ä'"},
		{"A \xff", "column 3: expected '&&' or '||' or the end, found byte 0xff"},
		{"'A'", "column 1: expected a condition type or '(' or '!', found '\\''"},
		{strings.Repeat("(", maxDepth+1) + "A" + strings.Repeat(")", maxDepth+1), "column 101: expected at most 100 nested '(' and '!', found '('"},
		{strings.Repeat("!(", maxDepth/2) + "!A", "column 101: expected at most 100 nested '(' and '!', found '!'"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want %q", tc.in, tc.want)
			continue
		}
		if err.Error() != tc.want {
			t.Errorf("Parse(%q):\n got %s\nwant %s", tc.in, err, tc.want)
		}
		if _, ok := err.(*SyntaxError); !ok {
			t.Errorf("Parse(%q) error is a %T, want *SyntaxError", tc.in, err)
		}
	}
}

// TestString prints trees built by hand, which Parse may never produce with
// these shapes (a right-nested chain, a Not over a chain), and checks that
// the print parses back to them.
func TestString(t *testing.T) {
	a, b, c, d := Ident{"A"}, Ident{"B"}, Ident{"C"}, Ident{"D"}
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{Or{a, Or{b, Or{c, d}}}, "A || (B || (C || D))"},
		{And{Or{a, b}, Or{c, d}}, "(A || B) && (C || D)"},
		{Or{And{a, b}, And{c, d}}, "A && B || C && D"},
		{And{a, And{b, Or{c, d}}}, "A && (B && (C || D))"},
		{Not{Not{Or{And{a, Not{b}}, c}}}, "!!(A && !B || C)"},
		{Or{Or{a, Not{And{b, c}}}, d}, "A || !(B && C) || D"},
		{And{Not{a}, Not{Or{b, c}}}, "!A && !(B || C)"},
	} {
		if got := tc.e.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.e, got, tc.want)
		}
		back, err := Parse(tc.want)
		if err != nil || !reflect.DeepEqual(back, tc.e) {
			t.Errorf("Parse(%q) = %#v, %v; want %#v", tc.want, back, err, tc.e)
		}
	}
}
