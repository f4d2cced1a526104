package expr

import "strings"

// Expr is a parsed expression: one of Ident, Not, And and Or.
type Expr interface {
	// String is the canonical form, which Parse turns back into the same
	// tree when the tree came from Parse.
	String() string
}

// Ident is a condition type, as written (with its prefix, if any).
type Ident struct {
	// Name is the condition type's name.
	Name string
}

// Not is !X.
type Not struct {
	// X is the negated expression.
	X Expr
}

// And is L && R.
type And struct {
	// L and R are the operands, left and right.
	L, R Expr
}

// Or is L || R.
type Or struct {
	// L and R are the operands, left and right.
	L, R Expr
}

// String is the identifier's name.
func (e Ident) String() string { return e.Name }

// String is the expression as an annotation writes it.
func (e Not) String() string { return format(e) }

// String is the expression as an annotation writes it.
func (e And) String() string { return format(e) }

// String is the expression as an annotation writes it.
func (e Or) String() string { return format(e) }

// Binding strengths, weakest first: an operand is parenthesized when it
// binds more weakly than its place asks.
const (
	levelOr = iota + 1
	levelAnd
	levelUnary
)

func level(e Expr) int {
	switch e.(type) {
	case Or:
		return levelOr
	case And:
		return levelAnd
	default:
		return levelUnary
	}
}

func format(e Expr) string {
	var b strings.Builder
	write(&b, e)
	return b.String()
}

// write prints e into b. The right operand of && and || asks for a tighter
// level than the left one because both are left-associative: "A && (B && C)"
// needs its parentheses to keep its tree.
func write(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case Not:
		b.WriteByte('!')
		operand(b, e.X, levelUnary)
	case And:
		operand(b, e.L, levelAnd)
		b.WriteString(" && ")
		operand(b, e.R, levelUnary)
	case Or:
		operand(b, e.L, levelOr)
		b.WriteString(" || ")
		operand(b, e.R, levelAnd)
	default:
		b.WriteString(e.String())
	}
}

func operand(b *strings.Builder, e Expr, min int) {
	if level(e) < min {
		b.WriteByte('(')
		write(b, e)
		b.WriteByte(')')
		return
	}
	write(b, e)
}
