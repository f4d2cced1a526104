package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
)

// opcert mechanisms prints the capability table in each format: a row per
// role, a ✘ with its footnote in table and markdown, the reason in json.
func TestMechanismsTable(t *testing.T) {
	out, err := listCmd(t, "mechanisms")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"LIBRARY  PROCESS  CLUSTER  WATCH/ANALYZE  STREAMING JUDGE",
		"stale (000)            operator          ✔        ✔        ✔        ✔              ✔",
		"[1] the version operator is the cluster's own"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table does not show %q:\n%s", want, out)
		}
	}
	md, err := listCmd(t, "mechanisms", "-o", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| | library | process | cluster | watch/analyze | streaming judge |\n|---|---|---|---|---|---|\n",
		"| stale (operator) | ✔ | ✔ | ✔ | ✔ | ✔ |\n", "| olm (olm) | ✘ [", "\n1. the version operator"} {
		if !strings.Contains(md, want) {
			t.Errorf("the markdown does not show %q:\n%s", want, md)
		}
	}
	js, err := listCmd(t, "mechanisms", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []conformance.Capability
	if err := json.Unmarshal([]byte(js), &rows); err != nil {
		t.Fatalf("%v in:\n%s", err, js)
	}
	lines := strings.Count(md, "\n| ") // the rows: the header is the first line
	if len(rows) == 0 || len(rows) != lines {
		t.Errorf("%d rows in json, %d in markdown", len(rows), lines)
	}
	if _, err := listCmd(t, "mechanisms", "-o", "html"); err == nil || !strings.Contains(err.Error(), "table, markdown, json, yaml") {
		t.Errorf("-o html: %v", err)
	}
}

// README's capability table is the one opcert mechanisms prints: a cell a
// change fills (or empties) is shown there too.
func TestReadmeCapabilityTable(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- opcert mechanisms -o markdown -->\n", "<!-- end of opcert mechanisms -->"
	_, after, ok := strings.Cut(string(readme), begin)
	shown, _, closed := strings.Cut(after, end)
	if !ok || !closed {
		t.Fatalf("README.md has no capability table between %q and %q", begin, end)
	}
	md, err := listCmd(t, "mechanisms", "-o", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	if shown != md {
		t.Errorf("README.md's capability table is not what opcert mechanisms -o markdown prints now; put its output between the markers:\n%s", md)
	}
}
