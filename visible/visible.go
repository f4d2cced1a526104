// Package visible makes text that comes from outside opcert (an operator's
// message, a scenario's description, a file name) safe to show on a
// terminal or in a report: control characters and the Unicode characters
// that reorder or break lines become visible escapes (\x1b, \u202e), so
// that such text cannot move the terminal's cursor, recolour it, erase a
// line, hide what follows or make a report read differently from what it
// holds. Escaping is one-way: it is for people, not for parsing back
// (Quote is the exception: strconv can read it back).
package visible

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text escapes every character Hidden reports, keeping newlines and tabs:
// for multi-line text (a message, a description, an error).
func Text(s string) string { return escape(s, false) }

// Line escapes every character Hidden reports, newlines and tabs too: for
// text that must stay on one line (a table cell, a file name in a finding).
func Line(s string) string { return escape(s, true) }

// Quote returns s as it is when every character of it prints as itself,
// and Go-quoted ("a\x1bb", which strconv.Unquote reads back) otherwise:
// for names a user gave (paths) that a reader may need to type again.
func Quote(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) || r == utf8.RuneError {
			return strconv.Quote(s)
		}
	}
	return s
}

// Hidden tells whether r is a character that does not show as itself: C0
// controls (ESC, NUL, carriage return, newline and tab...), DEL, C1
// controls, the bidirectional formatting characters (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069: "Trojan Source") and the line and
// paragraph separators U+2028 and U+2029.
func Hidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

func escape(s string, oneLine bool) string {
	if clean(s, oneLine) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i]) // not UTF-8: the byte
		case (r == '\n' || r == '\t') && !oneLine:
			b.WriteRune(r)
		case r < 0x80 && Hidden(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case Hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean tells whether s needs no escaping, the common case, so that it is
// returned without a copy.
func clean(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n <= 1) || (Hidden(r) && (oneLine || (r != '\n' && r != '\t'))) {
			return false
		}
		i += n
	}
	return true
}
