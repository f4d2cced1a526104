package staleoperator_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The operator is a team's, written from seed 000: its packages (the
// binary included, its tests aside, which certify it with opcert) build on
// nothing of opcert's.
func TestImportsNothingOfOpcert(t *testing.T) {
	const module, own = "github.com/opcert/opcert/", "github.com/opcert/opcert/examples/staleoperator"
	out, err := exec.Command("go", "list", "-deps", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, module) && p != own && !strings.HasPrefix(p, own+"/") {
			t.Errorf("imports %s", p)
		}
	}
}
