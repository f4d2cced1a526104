package faithful

import (
	"errors"
	"strings"
)

// value is a three-valued truth value (Kleene): the seed's expressions
// over conditions that may be missing or Unknown (002 §Test Plan: "cannot
// be calculated").
type value int

const (
	unknown value = iota
	yes
	no
)

func (v value) not() value {
	switch v {
	case yes:
		return no
	case no:
		return yes
	}
	return unknown
}

func and(a, b value) value {
	switch {
	case a == no || b == no:
		return no
	case a == yes && b == yes:
		return yes
	}
	return unknown
}

func or(a, b value) value {
	switch {
	case a == yes || b == yes:
		return yes
	case a == no && b == no:
		return no
	}
	return unknown
}

// node is a parsed expression: a condition type (name), a negation (one
// operand) or a binary operator ("&&", "||": two operands).
type node struct {
	op   string
	name string
	args []*node
}

var errSyntax = errors.New("not an expression of condition types, !, &&, || and parentheses")

// parse reads an annotation's boolean expression over condition types
// (002 §Opting into OLM Supported Conditions) by recursive descent:
// or := and {"||" and}; and := unary {"&&" unary}; unary := "!" unary |
// "(" or ")" | type.
func parse(s string) (*node, error) {
	p := &parser{s: s}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i != len(p.s) {
		return nil, errSyntax
	}
	return n, nil
}

type parser struct {
	s string
	i int
}

func (p *parser) skip() {
	for p.i < len(p.s) && strings.ContainsRune(" \t\r\n", rune(p.s[p.i])) {
		p.i++
	}
}

func (p *parser) eat(tok string) bool {
	p.skip()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *parser) or() (*node, error) {
	return p.binary("||", p.and)
}

func (p *parser) and() (*node, error) {
	return p.binary("&&", p.unary)
}

func (p *parser) binary(op string, next func() (*node, error)) (*node, error) {
	left, err := next()
	if err != nil {
		return nil, err
	}
	for p.eat(op) {
		right, err := next()
		if err != nil {
			return nil, err
		}
		left = &node{op: op, args: []*node{left, right}}
	}
	return left, nil
}

func (p *parser) unary() (*node, error) {
	switch {
	case p.eat("!"):
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{op: "!", args: []*node{n}}, nil
	case p.eat("("):
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if !p.eat(")") {
			return nil, errSyntax
		}
		return n, nil
	}
	p.skip()
	start := p.i
	for p.i < len(p.s) && typeByte(p.s[p.i]) {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" || !(name[0] >= 'A' && name[0] <= 'Z' || strings.Contains(name, "/")) {
		return nil, errSyntax
	}
	return &node{name: name}, nil
}

// typeByte tells whether c may be part of a condition type: CamelCase or
// foo.example.com/CamelCase (002 §Design Details).
func typeByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '/'
}

// eval is n's value over a CR's conditions (type -> status).
func (n *node) eval(conds map[string]string) value {
	switch n.op {
	case "!":
		return n.args[0].eval(conds).not()
	case "&&":
		return and(n.args[0].eval(conds), n.args[1].eval(conds))
	case "||":
		return or(n.args[0].eval(conds), n.args[1].eval(conds))
	}
	switch conds[n.name] {
	case "True":
		return yes
	case "False":
		return no
	}
	return unknown
}

// types are the condition types n names, in the order written.
func (n *node) types() []string {
	if n.op == "" {
		return []string{n.name}
	}
	var out []string
	for _, a := range n.args {
		for _, t := range a.types() {
			if !contains(out, t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// onlyOr tells whether n uses no operator but || (what 002 §Example
// Workflow says an Important expression should be).
func (n *node) onlyOr() bool {
	if n.op == "" {
		return true
	}
	if n.op != "||" {
		return false
	}
	return n.args[0].onlyOr() && n.args[1].onlyOr()
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
