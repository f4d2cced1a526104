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

// The capability table lives in docs/reference/mechanisms.md, generated
// (TestReferenceIsFresh); README.md links to it instead of copying it.
// A document that shows a copy of it between the markers shows what
// opcert mechanisms -o markdown prints now: a cell a change fills (or
// empties) is shown there too.
func TestReadmeCapabilityTable(t *testing.T) {
	md, err := listCmd(t, "mechanisms", "-o", "markdown")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", mechanismPage))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), md) {
		t.Errorf("docs/reference/%s does not hold what opcert mechanisms -o markdown prints now: run make docs", mechanismPage)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "](docs/reference/"+mechanismPage+")") {
		t.Errorf("README.md does not link the capability table, docs/reference/%s", mechanismPage)
	}
	const begin, end = "<!-- opcert mechanisms -o markdown -->\n", "<!-- end of opcert mechanisms -->"
	err = filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		generated := path == filepath.Join("..", "..", "docs", "reference")
		if err != nil || d.IsDir() && (generated || strings.HasPrefix(d.Name(), ".") && path != filepath.Join("..", "..")) {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, after, ok := strings.Cut(string(data), begin)
		if !ok {
			return nil
		}
		if shown, _, _ := strings.Cut(after, end); shown != md {
			t.Errorf("%s's copy of the capability table is not what opcert mechanisms -o markdown prints now; put its output between the markers, or link docs/reference/%s instead:\n%s", path, mechanismPage, md)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
