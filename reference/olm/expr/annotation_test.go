package expr

import (
	"reflect"
	"testing"
)

func TestParseAnnotation(t *testing.T) {
	const (
		up  = AnnotationPrefix + NameUpgradeable
		imp = AnnotationPrefix + NameImportant
	)
	for _, tc := range []struct {
		key, value string
		name       string
		e          Expr
		err        string
	}{
		// The annotations of 002 §Example Workflow.
		{key: up, value: "!Migrating", name: NameUpgradeable, e: Not{Ident{"Migrating"}}},
		{key: imp, value: "BadConnectivity || UnhealthyDatabase", name: NameImportant,
			e: Or{Ident{"BadConnectivity"}, Ident{"UnhealthyDatabase"}}},
		{key: up, value: "FinishedMigrating && ReadyToGo", name: NameUpgradeable,
			e: And{Ident{"FinishedMigrating"}, Ident{"ReadyToGo"}}},
		// Important: || and parentheses only.
		{key: imp, value: "(A || B) || (C)", name: NameImportant, e: Or{Or{Ident{"A"}, Ident{"B"}}, Ident{"C"}}},
		{key: imp, value: "Degraded", name: NameImportant, e: Ident{"Degraded"}},
		{key: imp, value: "A || B && C",
			err: `annotation olm.operatorframework.io/condition.Important "A || B && C": column 8: Important expressions may only use ||, found '&&'`},
		{key: imp, value: "A || (!B)",
			err: `annotation olm.operatorframework.io/condition.Important "A || (!B)": column 7: Important expressions may only use ||, found '!'`},
		{key: imp, value: "!A && B",
			err: `annotation olm.operatorframework.io/condition.Important "!A && B": column 1: Important expressions may only use ||, found '!'`},
		// A syntax error comes first.
		{key: imp, value: "A && b",
			err: `annotation olm.operatorframework.io/condition.Important "A && b": column 6: expected a condition type or '(' or '!', found 'b' (not CamelCase: a condition type starts with an upper-case letter)`},
		{key: up, value: "!migrating",
			err: `annotation olm.operatorframework.io/condition.Upgradeable "!migrating": column 2: expected a condition type or '(' or '!', found 'migrating' (not CamelCase: a condition type starts with an upper-case letter)`},
		{key: up, value: "",
			err: `annotation olm.operatorframework.io/condition.Upgradeable "": column 1: expected a condition type or '(' or '!', found end of expression`},
		// Keys.
		{key: AnnotationPrefix + "Available", value: "A",
			err: `annotation olm.operatorframework.io/condition.Available "A": OLM supports the conditions Upgradeable and Important, not "Available"`},
		{key: AnnotationPrefix + "upgradeable", value: "A",
			err: `annotation olm.operatorframework.io/condition.upgradeable "A": OLM supports the conditions Upgradeable and Important, not "upgradeable"`},
		{key: AnnotationPrefix, value: "A",
			err: `annotation olm.operatorframework.io/condition. "A": OLM supports the conditions Upgradeable and Important, not ""`},
		{key: "example.com/condition.Upgradeable", value: "A",
			err: `annotation example.com/condition.Upgradeable "A": not a condition annotation: the key does not start with olm.operatorframework.io/condition.`},
	} {
		name, e, err := ParseAnnotation(tc.key, tc.value)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseAnnotation(%s, %q) error:\n got %v\nwant %s", tc.key, tc.value, err, tc.err)
			}
			if _, ok := err.(*AnnotationError); !ok {
				t.Errorf("ParseAnnotation(%s, %q) error is a %T, want *AnnotationError", tc.key, tc.value, err)
			}
			if name != "" || e != nil {
				t.Errorf("ParseAnnotation(%s, %q) = %q, %v with its error", tc.key, tc.value, name, e)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAnnotation(%s, %q): %v", tc.key, tc.value, err)
			continue
		}
		if name != tc.name || !reflect.DeepEqual(e, tc.e) {
			t.Errorf("ParseAnnotation(%s, %q) = %q, %#v; want %q, %#v", tc.key, tc.value, name, e, tc.name, tc.e)
		}
	}
}

// TestAnnotationErrorFields checks the fields a caller reads: the position
// in the value, or -1 when the key is at fault.
func TestAnnotationErrorFields(t *testing.T) {
	for _, tc := range []struct {
		key, value string
		pos        int
	}{
		{AnnotationPrefix + NameImportant, "A || B && C", 7},
		{AnnotationPrefix + NameUpgradeable, "A B", 2},
		{AnnotationPrefix + "Ready", "A", -1},
	} {
		_, _, err := ParseAnnotation(tc.key, tc.value)
		ae, ok := err.(*AnnotationError)
		if !ok || ae.Pos != tc.pos || ae.Key != tc.key || ae.Value != tc.value || ae.Msg == "" {
			t.Errorf("ParseAnnotation(%s, %q) error %#v, want Pos %d", tc.key, tc.value, err, tc.pos)
		}
	}
}
