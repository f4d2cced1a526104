package docs_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The checklist of adding a mechanism is the toy mechanism's: a step the
// page marks *toy* is marked (N) in toy_test.go's comments, and no other.
func TestAddingAMechanismIsTheToys(t *testing.T) {
	page, err := os.ReadFile("concepts/adding-a-mechanism.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(page), "\n## Checklist\n")
	if !ok {
		t.Fatal("adding-a-mechanism.md has no Checklist section")
	}
	list, _, _ = strings.Cut(list, "\n## ")
	want := map[string]bool{}
	starts := step.FindAllStringSubmatchIndex(list, -1)
	if len(starts) < 6 {
		t.Fatalf("the checklist has %d steps", len(starts))
	}
	for i, s := range starts {
		n := list[s[2]:s[3]]
		if n != strconv.Itoa(i+1) {
			t.Errorf("step %d is numbered %s", i+1, n)
		}
		end := len(list)
		if i+1 < len(starts) {
			end = starts[i+1][0]
		}
		if first, _, _ := strings.Cut(list[s[0]:end], "\n"); strings.Contains(first, "(*toy*)") {
			want[n] = true
		}
	}
	toy, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "conformance/conformancetest/toy_test.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, g := range toy.Comments {
		for _, m := range marker.FindAllStringSubmatch(g.Text(), -1) {
			got[m[1]] = true
		}
	}
	for n := range want {
		if !got[n] {
			t.Errorf("step %s is marked *toy*, but toy_test.go marks no (%s)", n, n)
		}
	}
	for n := range got {
		if !want[n] {
			t.Errorf("toy_test.go marks (%s), a step the checklist does not mark *toy*", n)
		}
	}
}
