package expr

import (
	"fmt"
	"strings"
)

// The annotation keys of 002 §Opting into OLM Supported Conditions, and the
// two OLM Supported Conditions of 002 §Design Details.
const (
	AnnotationPrefix = "olm.operatorframework.io/condition."
	NameUpgradeable  = "Upgradeable"
	NameImportant    = "Important"
)

// AnnotationError is a condition annotation OLM cannot use: a key that is
// not one of the OLM Supported Conditions, or a value that does not parse
// or uses what its condition does not allow.
type AnnotationError struct {
	// Key and Value are the annotation's, as the CRD carries them.
	Key, Value string
	Pos        int // 0-based byte offset in Value; -1 when the key is wrong
	// Msg says what is wrong, for a person.
	Msg string
}

// Error names the annotation, its value and, where the value is wrong,
// the byte it is wrong at.
func (e *AnnotationError) Error() string {
	if e.Pos < 0 {
		return fmt.Sprintf("annotation %s %q: %s", e.Key, e.Value, e.Msg)
	}
	return fmt.Sprintf("annotation %s %q: column %d: %s", e.Key, e.Value, e.Pos+1, e.Msg)
}

// ParseAnnotation reads one condition annotation of an owned CRD: it returns
// the condition it is for (NameUpgradeable or NameImportant) and its
// expression. An Important expression may only use || and parentheses
// (002 §Example Workflow, decision 002, conformance/olm/README.md).
func ParseAnnotation(key, value string) (name string, e Expr, err error) {
	fail := func(pos int, msg string) (string, Expr, error) {
		return "", nil, &AnnotationError{Key: key, Value: value, Pos: pos, Msg: msg}
	}
	name, ok := strings.CutPrefix(key, AnnotationPrefix)
	if !ok {
		return fail(-1, "not a condition annotation: the key does not start with "+AnnotationPrefix)
	}
	if name != NameUpgradeable && name != NameImportant {
		return fail(-1, fmt.Sprintf("OLM supports the conditions Upgradeable and Important, not %q", name))
	}
	e, notOr, serr := parse(value)
	if serr != nil {
		return fail(serr.Pos, "expected "+serr.Expected+", found "+serr.Found)
	}
	if name == NameImportant && notOr >= 0 {
		found := (&lexer{src: value, pos: notOr}).next().found()
		return fail(notOr, "Important expressions may only use ||, found "+found)
	}
	return name, e, nil
}
