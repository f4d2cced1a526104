package main

import (
	"fmt"
	"strings"
	"unicode"
)

// An annotation's value is a boolean expression over condition types (002
// §Opting into OLM Supported Conditions): "!Migrating",
// "FinishedMigrating && ReadyToGo", "BadConnectivity || UnhealthyDatabase".
// A condition that is missing or Unknown is Unknown, and the operators
// combine in three values (Kleene's), so that an expression "cannot be
// calculated" (002 §Test Plan) exactly when its value is Unknown.

// truth is a three-valued truth, ordered: no < unknown < yes. Then "and"
// is the lesser of two truths, "or" the greater, and "not" turns the
// order round (Kleene's logic).
type truth int8

const (
	no truth = iota
	unknown
	yes
)

// node is a parsed expression: a condition type, a negation, or a
// conjunction or disjunction of two.
type node struct {
	op          string // "", "!", "&&", "||"
	name        string // the condition type when op is ""
	left, right *node
}

// eval is the expression's value for a CR whose conditions are status
// (type to "True", "False", "Unknown"); a type it lacks is unknown.
func (n *node) eval(status map[string]string) truth {
	switch n.op {
	case "!":
		return yes - n.left.eval(status)
	case "&&":
		return min(n.left.eval(status), n.right.eval(status))
	case "||":
		return max(n.left.eval(status), n.right.eval(status))
	}
	if v, ok := leaves[status[n.name]]; ok {
		return v
	}
	return unknown
}

// leaves are the truths of a condition's status.
var leaves = map[string]truth{"True": yes, "False": no}

// names are the condition types an expression made of types joined by
// || names, or false for any other expression.
func (n *node) names() ([]string, bool) {
	switch n.op {
	case "":
		return []string{n.name}, true
	case "||":
		l, okl := n.left.names()
		r, okr := n.right.names()
		return append(l, r...), okl && okr
	}
	return nil, false
}

// parse reads an expression: || binds loosest, then &&, then !; brackets
// group.
func parse(s string) (*node, error) {
	p := &parser{toks: tokens(s)}
	n, err := p.or()
	if err == nil && p.pos < len(p.toks) {
		err = fmt.Errorf("unexpected %q", p.toks[p.pos])
	}
	if err != nil {
		return nil, fmt.Errorf("expression %q: %w", s, err)
	}
	return n, nil
}

// tokens splits an expression into its operators, brackets and condition
// types (which may hold dots and a slash: foo.example.com/CamelCase).
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		switch c := rune(s[i]); {
		case unicode.IsSpace(c):
			i++
		case strings.HasPrefix(s[i:], "&&"), strings.HasPrefix(s[i:], "||"):
			out = append(out, s[i:i+2])
			i += 2
		case c == '!' || c == '(' || c == ')':
			out = append(out, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n!()&|", rune(s[j])) {
				j++
			}
			if j == i { // a lone & or |
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

type parser struct {
	toks []string
	pos  int
}

func (p *parser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *parser) or() (*node, error) { return p.binary("||", p.and) }

func (p *parser) and() (*node, error) { return p.binary("&&", p.unary) }

func (p *parser) binary(op string, operand func() (*node, error)) (*node, error) {
	left, err := operand()
	for err == nil && p.peek() == op {
		p.pos++
		var right *node
		if right, err = operand(); err == nil {
			left = &node{op: op, left: left, right: right}
		}
	}
	return left, err
}

func (p *parser) unary() (*node, error) {
	switch tok := p.peek(); {
	case tok == "":
		return nil, fmt.Errorf("it ends too soon")
	case tok == "!":
		p.pos++
		n, err := p.unary()
		return &node{op: "!", left: n}, err
	case tok == "(":
		p.pos++
		n, err := p.or()
		if err == nil && p.peek() != ")" {
			err = fmt.Errorf("a bracket is not closed")
		}
		p.pos++
		return n, err
	case tok == ")" || tok == "&&" || tok == "||" || !isType(tok):
		return nil, fmt.Errorf("unexpected %q", tok)
	default:
		p.pos++
		return &node{name: tok}, nil
	}
}

// isType tells whether s can be a condition type: CamelCase, or
// foo.example.com/CamelCase.
func isType(s string) bool {
	name := s
	if i := strings.LastIndex(s, "/"); i >= 0 {
		name = s[i+1:]
	}
	return name != "" && unicode.IsLetter(rune(name[0])) && !strings.ContainsAny(name, "&|")
}
