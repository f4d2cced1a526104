package visible

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// JSON returns encoded JSON with each hidden character beyond ASCII's
// controls (DEL, C1, the bidi formatting characters) written as a \u
// escape, which reads back as the same character: encoding/json escapes
// the C0 controls and U+2028/U+2029 itself and writes the rest raw.
// Outside strings JSON is ASCII, so every such character is inside a
// string. encoded is returned as it is when it holds none.
func JSON(encoded []byte) []byte {
	i := 0
	for i < len(encoded) && encoded[i] < 0x7f {
		i++
	}
	if i == len(encoded) {
		return encoded
	}
	out := append([]byte(nil), encoded[:i]...)
	for i < len(encoded) {
		r, n := utf8.DecodeRune(encoded[i:])
		if r >= 0x7f && Hidden(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, encoded[i:i+n]...)
		}
		i += n
	}
	return out
}

// JSONWriter is w with JSON applied to each Write, for a json.Encoder:
// it writes each value whole, in one Write.
func JSONWriter(w io.Writer) io.Writer { return jsonWriter{w} }

type jsonWriter struct{ w io.Writer }

func (j jsonWriter) Write(p []byte) (int, error) {
	if _, err := j.w.Write(JSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
