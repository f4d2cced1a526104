package expr

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

type tokenKind int

const (
	tokEnd    tokenKind = iota
	tokWord             // a run of type characters: a condition type if it checks
	tokNot              // !
	tokAnd              // &&
	tokOr               // ||
	tokLParen           // (
	tokRParen           // )
	tokOther            // anything else, a lone '&' or '|' included
)

type token struct {
	kind tokenKind
	pos  int    // 0-based byte offset in the source
	text string // the bytes of the token
}

// lexer cuts the source into tokens one at a time.
type lexer struct {
	src string
	pos int
}

func (l *lexer) next() token {
	for l.pos < len(l.src) && isSpace(l.src[l.pos]) {
		l.pos++
	}
	start := l.pos
	if start == len(l.src) {
		return token{kind: tokEnd, pos: start}
	}
	kind, n := tokOther, 1
	switch c := l.src[start]; {
	case c == '!':
		kind = tokNot
	case c == '(':
		kind = tokLParen
	case c == ')':
		kind = tokRParen
	case c == '&' && l.at(start+1) == '&':
		kind, n = tokAnd, 2
	case c == '|' && l.at(start+1) == '|':
		kind, n = tokOr, 2
	case isWord(c):
		kind, n = tokWord, 0
		for start+n < len(l.src) && isWord(l.src[start+n]) {
			n++
		}
	case c >= utf8.RuneSelf:
		_, n = utf8.DecodeRuneInString(l.src[start:])
	}
	l.pos = start + n
	return token{kind: kind, pos: start, text: l.src[start:l.pos]}
}

func (l *lexer) at(i int) byte {
	if i < len(l.src) {
		return l.src[i]
	}
	return 0
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isWord holds for the characters of a condition type and for those people
// wrongly put in one ('_', '-' and '.' after the prefix), so that a wrong
// type is reported whole, with what is wrong with it.
func isWord(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '/'
}

func isLetter(c byte) bool { return isUpper(c) || 'a' <= c && c <= 'z' }
func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// found says what a token is, for an error.
func (t token) found() string {
	switch {
	case t.kind == tokEnd:
		return "end of expression"
	case t.kind != tokOther:
		return "'" + t.text + "'"
	}
	if r, n := utf8.DecodeRuneInString(t.text); r == utf8.RuneError && n == 1 {
		return fmt.Sprintf("byte 0x%02x", t.text[0])
	}
	return strconv.QuoteRune([]rune(t.text)[0])
}
