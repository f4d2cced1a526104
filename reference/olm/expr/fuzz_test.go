package expr

import (
	"reflect"
	"strings"
	"testing"
)

// FuzzParse holds the parser to what the aggregator and the Probe's spec
// rely on, whatever the input: no panic; an error within the input that
// says what was expected and found; a tree whose String parses back to the
// same tree and prints the same again; ParseAnnotation agreeing with Parse,
// Important accepting exactly the ||-only trees; and Eval and Vars defined
// on every tree. (go test -fuzz FuzzParse ./reference/olm/expr/)
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"!Migrating",
		"FinishedMigrating && ReadyToGo",
		"BadConnectivity || UnhealthyDatabase",
		"foo.example.com/Migrating || !(A && B)",
		"A || (B || C) && !(D || E)",
		"((A)) && !!B || C",
		" \tA&&B\n||\r\n!C ",
		"",
		"migrating",
		"A & B | C",
		"A &&& B",
		"(A",
		"A)",
		"A B",
		"Foo-Bar || a/b/C || /A || x.io/",
		"A \xff\x00Ä",
		strings.Repeat("(", maxDepth+1) + "A" + strings.Repeat(")", maxDepth+1),
		strings.Repeat("!", maxDepth) + "A",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := Parse(s)
		_, ie, ierr := ParseAnnotation(AnnotationPrefix+NameImportant, s)
		_, ue, uerr := ParseAnnotation(AnnotationPrefix+NameUpgradeable, s)
		if err != nil {
			se, ok := err.(*SyntaxError)
			if !ok || se.Pos < 0 || se.Pos > len(s) || se.Expected == "" || se.Found == "" {
				t.Fatalf("Parse(%q): error %#v", s, err)
			}
			if ierr == nil || uerr == nil {
				t.Fatalf("Parse(%q) failed but ParseAnnotation accepted it", s)
			}
			return
		}
		canon := e.String()
		back, err := Parse(canon)
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q, which does not parse: %v", s, canon, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Fatalf("Parse(%q) = %#v, but its String %q parses to %#v", s, e, canon, back)
		}
		if again := back.String(); again != canon {
			t.Fatalf("String is not a fixed point: %q, then %q", canon, again)
		}
		if uerr != nil || !reflect.DeepEqual(ue, e) {
			t.Fatalf("Upgradeable annotation %q: %#v, %v; Parse gave %#v", s, ue, uerr, e)
		}
		if orOnly(e) != (ierr == nil) || ierr == nil && !reflect.DeepEqual(ie, e) {
			t.Fatalf("Important annotation %q: %#v, %v; Parse gave %#v", s, ie, ierr, e)
		}
		vars := Vars(e)
		for _, v := range vars {
			if x, err := Parse(v); err != nil || x != (Ident{v}) {
				t.Fatalf("Vars(%q) has %q, not a condition type", s, v)
			}
		}
		// Every variable Unknown gives Unknown: Kleene logic has no constants.
		if v := Eval(e, func(string) Value { return Unknown }); v != Unknown {
			t.Fatalf("Eval(%q) with every type Unknown = %v", s, v)
		}
	})
}

// orOnly says whether e uses only ||, what an Important expression may.
func orOnly(e Expr) bool {
	switch e := e.(type) {
	case Ident:
		return true
	case Or:
		return orOnly(e.L) && orOnly(e.R)
	}
	return false
}
