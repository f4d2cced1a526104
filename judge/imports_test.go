package judge

import (
	"os/exec"
	"strings"
	"testing"
)

// forbidden are what a package that only judges must not reach, even
// through another package: what plays runs (an API client, a controller
// runtime, process management, the API server, the simulator, the
// runner) and what is judged (the reference implementations).
var forbidden = []string{
	"k8s.io/client-go/",
	"sigs.k8s.io/controller-runtime/",
	"github.com/opcert/opcert/apiserver",
	"github.com/opcert/opcert/process",
	"github.com/opcert/opcert/reference/",
	"github.com/opcert/opcert/sim",
	"github.com/opcert/opcert/conformance",
}

// allowed are the packages under a forbidden prefix that only describe
// timelines.
var allowed = []string{"github.com/opcert/opcert/sim/timeline"}

// The kernel, every mechanism's rules package and the reports they write
// depend on nothing that plays a run or that they judge, however deep; and
// the recorder does not depend on the runner (it is the runner's
// dependency). Every rules package is found, so a new mechanism's is held
// to it too.
func TestRulesPackagesJudgeOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}",
		"github.com/opcert/opcert/judge", "github.com/opcert/opcert/reports", "github.com/opcert/opcert/record",
		"github.com/opcert/opcert/conformance/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rulesPackages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		var banned []string
		switch {
		case pkg == "github.com/opcert/opcert/record":
			banned = []string{"github.com/opcert/opcert/conformance"}
		case strings.HasSuffix(pkg, "/rules"):
			rulesPackages++
			banned = forbidden
		case pkg == "github.com/opcert/opcert/judge" || pkg == "github.com/opcert/opcert/reports":
			banned = forbidden
		default:
			continue
		}
		for _, d := range deps {
			if reaches(d, banned) {
				t.Errorf("%s depends on %s", pkg, d)
			}
		}
	}
	if rulesPackages < 5 {
		t.Errorf("found %d rules packages, want one per mechanism (at least 5)", rulesPackages)
	}
}

func reaches(dep string, banned []string) bool {
	for _, a := range allowed {
		if dep == a || strings.HasPrefix(dep, a+"/") {
			return false
		}
	}
	for _, b := range banned {
		if dep == b || strings.HasPrefix(dep, strings.TrimSuffix(b, "/")+"/") {
			return true
		}
	}
	return false
}
