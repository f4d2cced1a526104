package conformancetest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// DESIGN "The judge does not borrow from the judged": no mechanism's rules
// package (conformance/<mechanism>/rules) builds on reference/, tests
// included; nor does a package of faithful variants
// (conformance/<mechanism>/faithful), written from the seed alone. A
// mechanism added later is checked with no change here.
//
// One exception, named here: seed 003's world drives the cores of its
// roles through view and decision types (the harness's contract with a
// core: what a startup-monitor sees, the operations it may ask for) that
// are declared in reference/staticpod. Its faithful variants use those
// types and nothing else of the reference, which their own test holds
// (conformance/staticpod/faithful, TestOnlyTheContractOfTheReference).
// Moving the contract out of reference/ belongs to the mechanism
// contract of issue 21.
var contractOnly = map[string]string{
	"/conformance/staticpod/faithful": "/reference/staticpod",
}

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
			if allowed, ok := contractOnly[strings.TrimPrefix(pkg, module)]; ok && p == module+allowed {
				continue
			}
			if p == module+"/reference" || strings.HasPrefix(p, module+"/reference/") {
				t.Errorf("%s imports %s, the reference", pkg, p)
			}
		}
	}
}
