package visible

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	for _, tc := range []struct{ in, text, line string }{
		{"plain <b> & ü", "plain <b> & ü", "plain <b> & ü"},
		{"a\x1b[31mred", `a\x1b[31mred`, `a\x1b[31mred`},
		{"nul\x00 del\x7f cr\r", `nul\x00 del\x7f cr\x0d`, `nul\x00 del\x7f cr\x0d`},
		{"two\nlines\tand tab", "two\nlines\tand tab", `two\x0alines\x09and tab`},
		{"c1 \u009b csi", `c1 \u009b csi`, `c1 \u009b csi`},
		{"bidi \u202eevil\u202c \u2066x\u2069 \u200f", `bidi \u202eevil\u202c \u2066x\u2069 \u200f`, `bidi \u202eevil\u202c \u2066x\u2069 \u200f`},
		{"sep\u2028x", `sep\u2028x`, `sep\u2028x`},
		{"bad \xff utf8", `bad \xff utf8`, `bad \xff utf8`},
	} {
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"manifests/0000_50_a.yaml", "manifests/0000_50_a.yaml"},
		{"dir with space/ü.yaml", "dir with space/ü.yaml"},
		{"a\x1b[2Jb.yaml", `"a\x1b[2Jb.yaml"`},
		{"new\nline.yaml", `"new\nline.yaml"`},
		{"\u202egnp.yaml", `"\u202egnp.yaml"`},
		{"bad\xff", `"bad\xff"`},
	} {
		got := Quote(tc.in)
		if got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if got != tc.in {
			if back, err := strconv.Unquote(got); err != nil || back != tc.in {
				t.Errorf("Quote(%q) = %s does not read back: %q, %v", tc.in, got, back, err)
			}
		}
	}
}

// FuzzLine: whatever the input, Line's output holds no hidden character
// and no invalid UTF-8, and Text's holds none but newlines and tabs.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "a\x1b[31m", "\u202e\n\t", "\xff\xfe", "\u009b1m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		line, text := Line(s), Text(s)
		if !utf8.ValidString(line) || !utf8.ValidString(text) {
			t.Fatalf("Line(%q) = %q or Text = %q is not UTF-8", s, line, text)
		}
		for _, r := range line {
			if Hidden(r) {
				t.Fatalf("Line(%q) holds %U", s, r)
			}
		}
		for _, r := range text {
			if Hidden(r) && r != '\n' && r != '\t' {
				t.Fatalf("Text(%q) holds %U", s, r)
			}
		}
	})
}

func TestJSON(t *testing.T) {
	msg := "del\x7f c1\u009b bidi\u202e sep\u2028 esc\x1b ü <b>"
	var b bytes.Buffer
	if err := json.NewEncoder(JSONWriter(&b)).Encode(map[string]string{"m": msg}); err != nil {
		t.Fatal(err)
	}
	if want := `{"m":"del\u007f c1\u009b bidi\u202e sep\u2028 esc\u001b ü \u003cb\u003e"}` + "\n"; b.String() != want {
		t.Errorf("encoded %s, want %s", b.String(), want)
	}
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back["m"] != msg {
		t.Errorf("read back %q, %v", back["m"], err)
	}
	plain := []byte(`{"a":"b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied text with nothing to escape")
	}
}
