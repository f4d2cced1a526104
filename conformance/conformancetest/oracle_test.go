package conformancetest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The judge does not borrow from the judged: no mechanism's rules
// package (conformance/<mechanism>/rules) builds on reference/, tests
// included; nor does a package of faithful variants
// (conformance/<mechanism>/faithful), written from the seed alone. A
// mechanism added later is checked with no change here. (Seed 003's
// faithful variants speak its role contract, conformance/staticpod/contract,
// which is no part of reference/.)
func TestRulesImportNoReference(t *testing.T) {
	const module = "github.com/opcert/opcert"
	out, err := exec.Command("go", "list", module+"/conformance/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var rules []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasSuffix(p, "/rules") || strings.HasSuffix(p, "/faithful") {
			rules = append(rules, p)
		}
	}
	for _, want := range []string{module + "/conformance/stale/rules", module + "/conformance/staticpod/rules"} {
		if !slices.Contains(rules, want) {
			t.Fatalf("go list does not list %s among %q", want, rules)
		}
	}
	for _, pkg := range rules {
		out, err := exec.Command("go", "list", "-deps", "-test", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, p := range strings.Fields(string(out)) {
			if p == module+"/reference" || strings.HasPrefix(p, module+"/reference/") {
				t.Errorf("%s imports %s, the reference", pkg, p)
			}
		}
	}
}
