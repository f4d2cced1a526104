package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/opcert/opcert/visible"
)

// WriteJSON writes r as indented JSON: the complete report, for tools that
// post-process results or compare runs. HTML escaping is off because operator
// messages often hold "<" and ">" and the file is never embedded in a page.
// Hidden characters are written as \u escapes (encoding/json escapes the
// C0 controls; DEL, C1 and the bidi overrides are escaped here), so the
// file shows nothing raw to a terminal or an editor and reads back as the
// same text.
func WriteJSON(w io.Writer, r *Report) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(escapeHidden(b.Bytes()))
	return err
}

// escapeHidden writes each hidden character of encoded JSON beyond ASCII's
// controls (which encoding/json escapes, and which the indentation uses)
// as a \u escape. Outside strings JSON is ASCII, so every such character
// is inside a string, where the escape means the same.
func escapeHidden(js []byte) []byte {
	out := js[:0:0]
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		if r >= 0x7f && visible.Hidden(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, js[i:i+n]...)
		}
		i += n
	}
	return out
}
