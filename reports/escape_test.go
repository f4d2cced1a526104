package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

func TestMarkdownEscaping(t *testing.T) {
	for _, tc := range []struct{ name, in, text, inline string }{
		{"plain", "All is well", "All is well", "All is well"},
		{"html", `<script>alert(1)</script> & <img src=x>`, `&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x&gt;`, `&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x&gt;`},
		{"emphasis, code, math", "*a* _b_ `c` ~~d~~ $x$ \\", `\*a\* \_b\_ \` + "`c\\`" + ` \~\~d\~\~ \$x\$ \\`, `\*a\* \_b\_ \` + "`c\\`" + ` \~\~d\~\~ \$x\$ \\`},
		{"links", "[x](http://e) ![i](j) [r][s]", `\[x\](http://e) ![i\](j) [r\][s]`, `[x\](http://e) ![i\](j) [r\][s]`},
		{"line starts", "# h\n- l\n+ l\n===\n1. o\n2) o\n    code\n[d]: http://e", "\\# h\n\\- l\n\\+ l\n\\===\n1\\. o\n2\\) o\ncode\n\\[d]: http://e", `# h - l + l === 1. o 2) o code [d]: http://e`},
		{"a fence", "```\nx\n```", "\\`\\`\\`\nx\n\\`\\`\\`", "\\`\\`\\` x \\`\\`\\`"},
		{"hidden", "a\x1b[31mb\x00c\u202ed", `a\\x1b[31mb\\x00c\\u202ed`, `a\\x1b[31mb\\x00c\\u202ed`},
		{"pipes", "a|b", `a\|b`, `a\|b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mdText(tc.in); got != tc.text {
				t.Errorf("mdText(%q)\n = %q\nwant %q", tc.in, got, tc.text)
			}
			if got := mdInline(tc.in); got != tc.inline {
				t.Errorf("mdInline(%q)\n = %q\nwant %q", tc.in, got, tc.inline)
			}
		})
	}
}

func TestMarkdownCodeAndLinks(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"./op --name x", "`./op --name x`"},
		{"a `b` c", "``a `b` c``"},
		{"`x``", "``` `x`` ```"},
		{"a|b\x1bc", "`a\\|b\\x1bc`"},
	} {
		if got := mdCode(tc.in); got != tc.want {
			t.Errorf("mdCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"timelines/01-a.jsonl", "[timelines/01-a.jsonl](timelines/01-a.jsonl)"},
		{"p/a b(c)].log", "[p/a b(c)\\].log](p/a%20b%28c%29%5D.log)"},
	} {
		if got := mdLink(tc.in); got != tc.want {
			t.Errorf("mdLink(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// hostile is text an operator or a scenario could write: terminal control
// sequences, a NUL, a bidi override, HTML, a code fence and newlines.
const hostile = "Degraded\x1b[2J\x1b]0;pwned\x07 <script>alert(1)</script> \x00nul \u202eevil\u202c\n```\n# not a heading\n\u009b31m"

// rawBytes are what no report may hold raw from hostile.
var rawBytes = []string{"\x1b", "\x00", "\x07", "\u202e", "\u009b"}

func hostileReport() *Report {
	at := timeline.Epoch.Add(time.Minute)
	return &Report{Tool: "opcert", Runs: []Run{{
		Scenario: "hostile\x1b[31m", Description: hostile, Mechanism: "stale",
		Subjects: map[string]string{"operator": "exec:/bin/op --token=REDACTED -name '{name}'"}, Redacted: 1,
		Processes: []Process{{Name: "operator/a", Role: "operator", Command: "/bin/op --token=REDACTED -name a`b", Log: "processes/a.log",
			Endings: []string{"exited with status 1"}}},
		Error: hostile, Stopped: StopSubject,
		Cases: []Case{
			{Rule: "STALE-001", Section: "000 §Proposal", Statement: "answered", Role: "operator", Status: Fail, Message: hostile,
				Evidence: []timeline.Event{{Time: at, Actor: "op\x1b", Verb: timeline.VerbUpdateStatus, Object: widget, Detail: hostile,
					Conditions: []timeline.ConditionChange{{Type: "Ready", After: &timeline.Condition{Status: "False", Reason: "R\x1b", Message: hostile}}}}}},
			{Rule: "STALE-002", Section: "000 §Proposal", Statement: "styled", Role: "operator", Status: Warn, Message: hostile},
			{Rule: "STALE-003", Section: "000 §Proposal", Statement: "skipped", Role: "operator", Status: Skip, Message: hostile},
		},
	}}}
}

// TestHostileTextInEveryFormat writes a report whose messages, description
// and names hold control characters, HTML and a code fence in every format,
// and checks that none of it is raw in any, that each still parses as its
// format, and that the text is still there to read.
func TestHostileTextInEveryFormat(t *testing.T) {
	r := hostileReport()
	dir := t.TempDir()
	if err := WriteAll(dir, r); err != nil {
		t.Fatal(err)
	}
	var summary bytes.Buffer
	WriteSummary(&summary, r)
	outputs := map[string]string{"summary": summary.String(), "headline": r.Runs[0].Headline()}
	for _, name := range []string{"junit.xml", "report.json", "report.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = string(b)
	}
	for name, out := range outputs {
		for _, raw := range rawBytes {
			if strings.Contains(out, raw) {
				t.Errorf("%s holds a raw %q", name, raw)
			}
		}
		shown := `Degraded\x1b[2J`
		switch name {
		case "headline":
			shown = `hostile\x1b[31m`
		case "report.md":
			shown = `Degraded\\x1b[2J` // its backslash escaped for Markdown
		case "report.json":
			shown = `Degraded\u001b[2J` // as JSON escapes it
		}
		if !strings.Contains(out, shown) {
			t.Errorf("%s does not show %s:\n%s", name, shown, out)
		}
	}
	for _, name := range []string{"report.md", "report.html"} {
		if strings.Contains(outputs[name], "<script>alert") {
			t.Errorf("%s holds the message's <script> raw", name)
		}
		if !strings.Contains(outputs[name], "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s does not show the message's <script> as text", name)
		}
	}
	if !strings.Contains(outputs["summary"], "FAIL STALE-001 hostile\\x1b[31m [operator=exec:/bin/op --token=REDACTED -name '{name}']: Degraded\\x1b[2J") {
		t.Errorf("summary:\n%s", outputs["summary"])
	}

	// report.md: the only lines that open or close code are its own
	// evidence fence, and no line of the message is a heading.
	md := outputs["report.md"]
	var fences []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "`") {
			fences = append(fences, l)
		}
		if strings.HasPrefix(l, "# not") {
			t.Errorf("report.md: the message made a heading: %q", l)
		}
	}
	if len(fences) != 2 || fences[0] != fences[1] || len(fences[0]) < 4 {
		t.Errorf("report.md's fences: %q, want one evidence block whose fence is longer than the message's", fences)
	}
	for _, want := range []string{"1 secret-looking value redacted", "``/bin/op --token=REDACTED -name a`b``", "\\# not a heading"} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(outputs["report.html"], "1 secret-looking value redacted") {
		t.Error("report.html does not say what it redacted")
	}

	// junit.xml: XML 1.0 that encoding/xml reads back, with the message
	// readable (its hidden characters visible, its HTML as text).
	var doc junitSuites
	if err := xml.Unmarshal([]byte(outputs["junit.xml"]), &doc); err != nil {
		t.Fatalf("junit.xml does not decode: %v", err)
	}
	failure := doc.Suites[0].Cases[0].Failure
	if failure == nil || !strings.Contains(failure.Message, `Degraded\x1b[2J\x1b]0;pwned\x07 <script>alert(1)</script> \x00nul \u202eevil\u202c`) {
		t.Errorf("junit.xml's failure message: %+v", failure)
	}
	if p := doc.Suites[0].Properties; len(p) != 1 || !strings.Contains(p[0].Value, "1 secret-looking value redacted") {
		t.Errorf("junit.xml's properties: %+v", p)
	}
	for _, c := range doc.Suites[0].Cases {
		if strings.ContainsRune(c.Name+c.SystemOut, 0xfffd) || (c.Failure != nil && strings.ContainsRune(c.Failure.Message+c.Failure.Body, 0xfffd)) {
			t.Errorf("junit.xml replaced a character by U+FFFD instead of showing it: %+v", c)
		}
	}

	// report.json: the same text, read back exactly.
	var back Report
	if err := json.Unmarshal([]byte(outputs["report.json"]), &back); err != nil {
		t.Fatalf("report.json does not decode: %v", err)
	}
	if back.Runs[0].Cases[0].Message != hostile || back.Runs[0].Description != hostile || back.Runs[0].Redacted != 1 {
		t.Errorf("report.json does not read back: %q", back.Runs[0].Cases[0].Message)
	}
}

// FuzzMarkdownText: whatever a message holds, its Markdown holds no hidden
// character, no raw < > or unescaped & (no HTML, no autolink, no entity),
// no backtick or pipe that is not escaped, and no line that begins a
// heading, list, quote, code block or link definition.
func FuzzMarkdownText(f *testing.F) {
	for _, s := range []string{hostile, "", "<b>&amp;</b>", "\\`", "1. a\n  - b\n    c\n> q", "[a]: b", "x\r\ny\u2028z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text := mdText(s)
		for _, out := range []string{text, mdInline(s)} {
			if strings.ContainsAny(out, "<>") {
				t.Fatalf("%q gives %q: raw < or >", s, out)
			}
			for i, r := range out {
				if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || r == 0x202e || r == 0x2028 {
					t.Fatalf("%q gives %q: hidden %U", s, out, r)
				}
				if r == '&' && !strings.HasPrefix(out[i:], "&amp;") && !strings.HasPrefix(out[i:], "&lt;") && !strings.HasPrefix(out[i:], "&gt;") {
					t.Fatalf("%q gives %q: a raw &", s, out)
				}
			}
			if escapedRun(out, '`') || escapedRun(out, '|') {
				t.Fatalf("%q gives %q: a backtick or pipe not escaped", s, out)
			}
		}
		for _, l := range strings.Split(text, "\n") {
			if l != "" && (strings.ContainsRune("#-+=[>* \t", rune(l[0])) || orderedItem.MatchString(l)) {
				t.Fatalf("%q gives the line %q", s, l)
			}
		}
		if strings.Contains(mdInline(s), "\n") {
			t.Fatalf("mdInline(%q) is not one line", s)
		}
	})
}

// escapedRun tells whether out holds c not preceded by an odd number of
// backslashes (c as Markdown reads it, not as text).
func escapedRun(out string, c byte) bool {
	for i := 0; i < len(out); i++ {
		if out[i] != c {
			continue
		}
		n := 0
		for j := i - 1; j >= 0 && out[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return true
		}
	}
	return false
}
