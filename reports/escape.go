package reports

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/opcert/opcert/visible"
)

// Text from outside opcert (an operator's message, a scenario's
// description, a field manager, a subject's command) is escaped for the
// format it is written in, so that a report shows what a subject wrote
// and nothing else: hidden characters (ESC, NUL, the bidi overrides) are
// made visible in every format (package visible); report.md also keeps
// HTML and Markdown syntax from taking effect (a viewer must not render a
// message's <script>, nor turn its * into emphasis); report.html escapes
// HTML (esc) and junit.xml XML (encoding/xml); report.json escapes what is
// hidden as \u sequences, which read back as the same text (json.go).

// shownLine is s on one line, hidden characters made visible: for a
// terminal line or a table cell.
func shownLine(s string) string { return visible.Line(oneLine(s)) }

// mdText escapes text for Markdown prose, line by line (mdInline), and at
// each line's start drops the indent that would make a code block and
// escapes the # - + = [ or "1." that would make a heading, a list, a rule
// or a link definition.
func mdText(s string) string {
	lines := strings.Split(visible.Text(s), "\n")
	for i, l := range lines {
		l = mdEscape(strings.TrimLeft(l, " \t"))
		if l != "" && strings.ContainsRune("#-+=[", rune(l[0])) {
			l = `\` + l
		}
		lines[i] = orderedItem.ReplaceAllString(l, `$1\$2`)
	}
	return strings.Join(lines, "\n")
}

// orderedItem is the start of an ordered list item: digits, then . or ).
var orderedItem = regexp.MustCompile(`^([0-9]{1,9})([.)])`)

// mdInline is s on one line of Markdown, not at its start (a table cell,
// a heading's text, a list item's): hidden characters visible, and
// mdEscape.
func mdInline(s string) string { return mdEscape(shownLine(s)) }

// mdEscape writes &, < and > as entities (no HTML, no autolink, no
// entity of the text's own takes effect), and backslash-escapes \ ` * _ |
// ~ $ (code, emphasis, table cells, strike-through, math) and a ] that
// would close a link's text (followed by ( or [).
func mdEscape(l string) string {
	var b strings.Builder
	for i, r := range l {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '_', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case ']':
			if i+1 < len(l) && (l[i+1] == '(' || l[i+1] == '[') {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdCode is s as a Markdown code span on one line, in a table cell: its
// delimiter longer than any run of backticks in s (padded with a blank
// where s begins or ends with one), so that s cannot close it; pipes
// escaped, as a table needs even in code.
func mdCode(s string) string {
	s = shownLine(s)
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + strings.ReplaceAll(s, "|", `\|`) + ticks
}

// mdLink is a link to a file of the report directory, its text escaped
// (brackets too) and its path percent-encoded, parentheses and blanks
// included.
func mdLink(path string) string {
	dest := (&url.URL{Path: path}).EscapedPath()
	dest = strings.NewReplacer("(", "%28", ")", "%29").Replace(dest)
	text := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(mdInline(path))
	return "[" + text + "](" + dest + ")"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c rune) int {
	longest, n := 0, 0
	for _, r := range s {
		if r == c {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return longest
}
