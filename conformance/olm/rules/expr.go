package rules

import (
	"fmt"
	"strings"
)

// The rules' own evaluator of the annotation expressions (002 §Opting into OLM
// Supported Conditions; decision 002, conformance/olm/README.md), written from
// the seed and that decision, not taken from the reference it judges.
// Where the reference descends recursively over a tree, this one checks the
// syntax with a two-state automaton (an operand is wanted, or an operator is),
// turns the tokens into postfix order with a shunting yard, and evaluates the
// postfix over Kleene's three values kept as -1, 0 and +1, so that && is the
// minimum, || the maximum and ! the negation.

// truth is a three-valued (Kleene) truth value: False < Unknown < True.
type truth int8

const (
	tFalse   truth = -1
	tUnknown truth = 0
	tTrue    truth = 1
)

func (v truth) String() string {
	switch v {
	case tTrue:
		return statusTrue
	case tFalse:
		return statusFalse
	}
	return statusUnknown
}

// truthOf reads a condition's status: "True" and "False" are themselves,
// anything else (absent, "Unknown", garbage) cannot be calculated.
func truthOf(status string) truth {
	switch status {
	case statusTrue:
		return tTrue
	case statusFalse:
		return tFalse
	}
	return tUnknown
}

type tokenKind int

const (
	tokIdent tokenKind = iota
	tokNot
	tokAnd
	tokOr
	tokOpen
	tokClose
	tokEnd
)

type token struct {
	kind tokenKind
	pos  int    // byte offset
	text string // as written
}

// describe says what a token is in an error message.
func (t token) describe() string {
	if t.kind == tokEnd {
		return "end of expression"
	}
	return fmt.Sprintf("%q", t.text)
}

// program is an expression that parses, in postfix order.
type program struct {
	postfix []token
	// ops are the operators used, for Important's ||-only rule.
	ops []token
}

// exprError is why an expression does not parse: where (0-based byte
// offset) and what was expected there.
type exprError struct {
	pos      int
	expected string
	found    string
}

func (e *exprError) Error() string {
	return fmt.Sprintf("column %d: expected %s, found %s", e.pos+1, e.expected, e.found)
}

// compile checks s and returns it in postfix order.
func compile(s string) (*program, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	// The automaton: wantOperand after the start, an operator, '!' or
	// '('; otherwise an operator, ')' or the end is wanted.
	wantOperand, depth := true, 0
	for _, t := range toks {
		switch {
		case wantOperand && t.kind == tokIdent:
			wantOperand = false
		case wantOperand && t.kind == tokNot:
		case wantOperand && t.kind == tokOpen:
			depth++
		case wantOperand:
			return nil, &exprError{t.pos, "a condition type, '!' or '('", t.describe()}
		case t.kind == tokAnd || t.kind == tokOr:
			wantOperand = true
		case t.kind == tokClose && depth > 0:
			depth--
		case t.kind == tokEnd && depth == 0:
		case depth > 0:
			return nil, &exprError{t.pos, "'&&', '||' or ')'", t.describe()}
		default:
			return nil, &exprError{t.pos, "'&&', '||' or the end", t.describe()}
		}
	}
	return shunt(toks), nil
}

// precedence: ! binds tightest, then &&, then ||.
func precedence(k tokenKind) int {
	switch k {
	case tokNot:
		return 3
	case tokAnd:
		return 2
	case tokOr:
		return 1
	}
	return 0
}

// shunt orders well-formed tokens in postfix (Dijkstra's shunting yard).
// Binary operators are left-associative: an incoming one pops those of
// equal or higher precedence; '!' is a prefix operator, pushed as it
// comes, and popped by any binary operator, which binds less.
func shunt(toks []token) *program {
	p := &program{}
	var stack []token
	pop := func() {
		p.postfix = append(p.postfix, stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	for _, t := range toks {
		switch t.kind {
		case tokIdent:
			p.postfix = append(p.postfix, t)
		case tokNot, tokOpen:
			if t.kind == tokNot {
				p.ops = append(p.ops, t)
			}
			stack = append(stack, t)
		case tokAnd, tokOr:
			p.ops = append(p.ops, t)
			for len(stack) > 0 && stack[len(stack)-1].kind != tokOpen && precedence(stack[len(stack)-1].kind) >= precedence(t.kind) {
				pop()
			}
			stack = append(stack, t)
		case tokClose:
			for stack[len(stack)-1].kind != tokOpen {
				pop()
			}
			stack = stack[:len(stack)-1]
		case tokEnd:
			for len(stack) > 0 {
				pop()
			}
		}
	}
	return p
}

// eval evaluates the program over a CR's conditions: status gives a
// condition type's status ("" when the CR has none of that type).
func (p *program) eval(status func(conditionType string) string) truth {
	var stack []truth
	for _, t := range p.postfix {
		n := len(stack)
		switch t.kind {
		case tokIdent:
			stack = append(stack, truthOf(status(t.text)))
		case tokNot:
			stack[n-1] = -stack[n-1]
		case tokAnd:
			stack[n-2] = min(stack[n-2], stack[n-1])
			stack = stack[:n-1]
		case tokOr:
			stack[n-2] = max(stack[n-2], stack[n-1])
			stack = stack[:n-1]
		}
	}
	return stack[0]
}

// names are the condition types the program reads.
func (p *program) names() map[string]bool {
	out := map[string]bool{}
	for _, t := range p.postfix {
		if t.kind == tokIdent {
			out[t.text] = true
		}
	}
	return out
}

// onlyOr rejects what an Important expression may not use: && and !
// (002 §Example Workflow: "The Important condition should only include
// the `OR` boolean operator"; decision 002, conformance/olm/README.md).
func (p *program) onlyOr() error {
	for _, t := range p.ops {
		if t.kind != tokOr {
			return &exprError{t.pos, "'||' (an Important expression may only use ||)", t.describe()}
		}
	}
	return nil
}

// lex splits s into tokens, ending with tokEnd.
func lex(s string) ([]token, error) {
	var out []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '!':
			out = append(out, token{tokNot, i, "!"})
			i++
		case c == '(':
			out = append(out, token{tokOpen, i, "("})
			i++
		case c == ')':
			out = append(out, token{tokClose, i, ")"})
			i++
		case strings.HasPrefix(s[i:], "&&"):
			out = append(out, token{tokAnd, i, "&&"})
			i += 2
		case strings.HasPrefix(s[i:], "||"):
			out = append(out, token{tokOr, i, "||"})
			i += 2
		case wordByte(c):
			j := i
			for j < len(s) && wordByte(s[j]) {
				j++
			}
			if !conditionType(s[i:j]) {
				return nil, &exprError{i, "a condition type (CamelCase or prefix/CamelCase)", fmt.Sprintf("%q", s[i:j])}
			}
			out = append(out, token{tokIdent, i, s[i:j]})
			i = j
		default:
			return nil, &exprError{i, "a condition type, an operator or a parenthesis", fmt.Sprintf("%q", s[i:i+1])}
		}
	}
	return append(out, token{tokEnd, len(s), ""}), nil
}

// wordByte tells whether c may be part of a condition type as written.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '/'
}

// conditionType tells whether w is a condition type of 002 §Design
// Details: CamelCase (an upper-case letter, then letters and digits), or
// prefix/CamelCase with a DNS subdomain prefix (lower-case letters,
// digits, '-' and '.').
func conditionType(w string) bool {
	if prefix, name, ok := strings.Cut(w, "/"); ok {
		if prefix == "" {
			return false
		}
		for i := 0; i < len(prefix); i++ {
			c := prefix[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
				return false
			}
		}
		w = name
	}
	if w == "" || !(w[0] >= 'A' && w[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(w); i++ {
		c := w[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
