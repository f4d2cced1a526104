package reports

import (
	"encoding/json"
	"io"

	"github.com/opcert/opcert/visible"
)

// WriteJSON writes r as indented JSON: the complete report, for tools that
// post-process results or compare runs. HTML escaping is off because operator
// messages often hold "<" and ">" and the file is never embedded in a page.
// Hidden characters are written as \u escapes (visible.JSON), so the file
// shows none raw to a terminal or an editor and reads back as the same
// text.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(visible.JSONWriter(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
