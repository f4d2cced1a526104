package reports

import (
	"encoding/json"
	"io"
)

// WriteJSON writes r as indented JSON: the complete report, for tools that
// post-process results or compare runs. HTML escaping is off because operator
// messages often hold "<" and ">" and the file is never embedded in a page.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
