package expr

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// maxDepth bounds the nesting of '(' and '!', the parser's only recursion
// (chains of && and || are loops), so that no input exhausts the stack.
const maxDepth = 100

// What the parser expects at each kind of place, as its errors say it.
const (
	expectOperand  = "a condition type or '(' or '!'"
	expectOperator = "'&&' or '||' or the end"
	expectClose    = "'&&' or '||' or ')'"
)

// SyntaxError is an expression that does not parse.
type SyntaxError struct {
	Pos      int    // 0-based byte offset of the problem
	Expected string // what the grammar allows there
	Found    string // what is there
}

// Error is the problem with its column, counted from 1.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("column %d: expected %s, found %s", e.Pos+1, e.Expected, e.Found)
}

// Parse parses an expression of the language described in the package doc.
func Parse(s string) (Expr, error) {
	e, _, err := parse(s)
	if err != nil {
		return nil, err
	}
	return e, nil
}

// parse also returns the offset of the first '&&' or '!' (-1 if none), which
// an Important annotation may not use.
func parse(s string) (Expr, int, *SyntaxError) {
	p := parser{lex: lexer{src: s}, notOr: -1}
	p.advance()
	e, err := p.or()
	if err == nil && p.tok.kind != tokEnd {
		err = p.unexpected(expectOperator)
	}
	return e, p.notOr, err
}

type parser struct {
	lex   lexer
	tok   token // the next token, not yet consumed
	depth int   // '(' and '!' open around the current token
	notOr int   // offset of the first '&&' or '!', -1 if none yet
}

func (p *parser) advance() { p.tok = p.lex.next() }

func (p *parser) unexpected(expected string) *SyntaxError {
	return &SyntaxError{Pos: p.tok.pos, Expected: expected, Found: p.tok.found()}
}

// sawNotOr remembers the first '&&' or '!' for ParseAnnotation.
func (p *parser) sawNotOr() {
	if p.notOr < 0 {
		p.notOr = p.tok.pos
	}
}

func (p *parser) or() (Expr, *SyntaxError) {
	l, err := p.and()
	for err == nil && p.tok.kind == tokOr {
		p.advance()
		var r Expr
		if r, err = p.and(); err == nil {
			l = Or{L: l, R: r}
		}
	}
	return l, err
}

func (p *parser) and() (Expr, *SyntaxError) {
	l, err := p.unary()
	for err == nil && p.tok.kind == tokAnd {
		p.sawNotOr()
		p.advance()
		var r Expr
		if r, err = p.unary(); err == nil {
			l = And{L: l, R: r}
		}
	}
	return l, err
}

func (p *parser) unary() (Expr, *SyntaxError) {
	switch p.tok.kind {
	case tokNot:
		p.sawNotOr()
		if err := p.enter(); err != nil {
			return nil, err
		}
		x, err := p.unary()
		p.depth--
		if err != nil {
			return nil, err
		}
		return Not{X: x}, nil
	case tokLParen:
		if err := p.enter(); err != nil {
			return nil, err
		}
		x, err := p.or()
		p.depth--
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, p.unexpected(expectClose)
		}
		p.advance()
		return x, nil
	case tokWord:
		if why := typeProblem(p.tok.text); why != "" {
			err := p.unexpected(expectOperand)
			err.Found += " (" + why + ")"
			return nil, err
		}
		x := Ident{Name: p.tok.text}
		p.advance()
		return x, nil
	default:
		return nil, p.unexpected(expectOperand)
	}
}

// enter consumes a '(' or '!' that opens one more level of nesting.
func (p *parser) enter() *SyntaxError {
	if p.depth == maxDepth {
		return p.unexpected(fmt.Sprintf("at most %d nested '(' and '!'", maxDepth))
	}
	p.depth++
	p.advance()
	return nil
}

// typeProblem says why a word is not a condition type, or "" if it is one:
// CamelCase, or prefix/CamelCase with a DNS subdomain as the prefix (the
// seed's "CamelCase or foo.example.com/CamelCase", 002 §Design Details).
func typeProblem(w string) string {
	name := w
	if prefix, rest, ok := strings.Cut(w, "/"); ok {
		if len(validation.IsDNS1123Subdomain(prefix)) > 0 {
			return "the prefix '" + prefix + "' is not a DNS subdomain"
		}
		name = rest
	}
	if name == "" || !isUpper(name[0]) {
		return "not CamelCase: a condition type starts with an upper-case letter"
	}
	for i := 1; i < len(name); i++ {
		if !isLetter(name[i]) && !isDigit(name[i]) {
			return "not CamelCase: a condition type has only letters and digits"
		}
	}
	return ""
}
