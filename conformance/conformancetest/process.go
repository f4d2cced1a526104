package conformancetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// The tests of a mechanism's roles played by a team's executables
// (process mode), written once: play a built-in as opcert run plays it
// (PlayProcess), want it certified (Certified), see who wrote what
// (Writers) and how each process ended (EndedAs, Logged).

// How a process ended, as a run's report says (conformance.Processes): one
// running at the end of the run stops on SIGTERM, as a manager does; one a
// step killed, or an upgrade replaced, was sent SIGKILL.
const (
	StoppedAtEnd = `^running at the end of the run, stopped by opcert with SIGTERM after [0-9.]+m?s \(exited with status 0\)$`
	KilledByStep = `^killed by opcert \(SIGKILL\)$`
)

// PlayProcess plays a scenario, a built-in's name or the path of a
// scenario file (.yaml), as opcert run plays it in process mode: subjects choose the cast (role=subject, as --subject, an
// executable's exec:COMMAND among them), api is the API server the
// processes run against (their host: a user each, their writes put down to
// them by its audit), the scenario's times are multiplied by scale, each
// run's objects are named under prefix and the processes' output is kept
// in a temporary directory of t's. It may be called from any goroutine: a
// scenario or a cast that cannot be played fails t and comes back as the
// run's error.
func PlayProcess(t testing.TB, api *apiserver.Server, prefix string, m conformance.Mechanism, scenario string, subjects map[string]string, scale float64) (reports.Run, *timeline.Timeline) {
	t.Helper()
	sc, cast, failed := load(t, m, scenario, subjects)
	if sc == nil {
		return failed, &timeline.Timeline{}
	}
	return conformance.Play(context.Background(), api.Client, m, sc, cast, conformance.Options{Prefix: prefix,
		Dir: t.TempDir(), Host: api, ProcessDir: t.TempDir(), TimeScale: scale})
}

// load reads a scenario, a built-in's name or the path of a file
// (.yaml), and casts subjects; what cannot be played fails t, and comes
// back as a run's error (with a nil scenario).
func load(t testing.TB, m conformance.Mechanism, scenario string, subjects map[string]string) (*scenarios.Scenario, conformance.Cast, reports.Run) {
	t.Helper()
	read := scenarios.BuiltinNamed
	if strings.HasSuffix(scenario, ".yaml") {
		read = scenarios.Load
	}
	sc, err := read(scenario)
	if err != nil {
		t.Error(err)
		return nil, nil, reports.Run{Scenario: scenario, Error: err.Error()}
	}
	cast, err := conformance.Subjects(m, subjects)
	if err != nil {
		t.Error(err)
		return nil, nil, reports.Run{Scenario: sc.Name, Error: err.Error()}
	}
	return sc, cast, reports.Run{}
}

// Certified checks a run its subject must pass: played to its end
// (neither an error nor a stop), judged (nothing NOT JUDGED), no rule
// failed, and each rule of passed passed, as the scenario gave it
// something to judge. It may be called from any goroutine.
func Certified(t testing.TB, run reports.Run, passed ...string) {
	t.Helper()
	if run.Error != "" || run.Stopped != "" || len(run.NotJudged) > 0 {
		t.Errorf("%s: error %q, stopped %q, not judged %q", run.Scenario, run.Error, run.Stopped, run.NotJudged)
	}
	for _, c := range run.Cases {
		if c.Status == reports.Fail {
			t.Errorf("%s %s: %s %s", run.Scenario, c.Rule, c.Status, c.Message)
		}
	}
	for _, id := range passed {
		if c, _ := Case(run, id); c.Status != reports.Pass {
			t.Errorf("%s: %s is %q (%s), want pass", run.Scenario, id, c.Status, c.Message)
		}
	}
}

// Writers are the distinct non-empty descriptions of a timeline's writes
// (what a test asks of each: its actor and role, say, for the kinds it
// looks at), sorted.
func Writers(tl *timeline.Timeline, what func(e timeline.Event) string) []string {
	var out []string
	for _, e := range tl.Events() {
		if w := what(e); e.IsWrite() && w != "" && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// EndedAs tells whether each of a process's endings matches the pattern
// of want at its place (StoppedAtEnd, KilledByStep).
func EndedAs(endings []string, want ...string) bool {
	if len(endings) != len(want) {
		return false
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(endings[i]) {
			return false
		}
	}
	return true
}

// Logged checks that each process of the run left output in its log, a
// path relative to dir (a report's directory; "" for the paths
// conformance.Play gives).
func Logged(t testing.TB, run reports.Run, dir string) {
	t.Helper()
	for _, p := range run.Processes {
		if log, err := os.ReadFile(filepath.Join(dir, p.Log)); err != nil || len(log) == 0 {
			t.Errorf("%s: %s's output %s: %v", run.Scenario, p.Name, p.Log, err)
		}
	}
}

// Running lists the processes running the executable bin (their ids).
func Running(bin string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		exe, err := os.Readlink(filepath.Join(d, "exe"))
		if err == nil && exe == bin {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// Gone fails t if a process of bin still runs a few seconds on: the end
// of a run stops every process it started.
func Gone(t testing.TB, bin string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); len(Running(bin)) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("processes of %s outlived the run: %v", bin, Running(bin))
		}
		<-time.After(50 * time.Millisecond)
	}
}

// Build builds the Go command of dir (relative to the test's package: an
// example's) into a temporary directory of t's, and returns its path.
func Build(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(dir))
	if out, err := exec.Command("go", "build", "-o", bin, dir).CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v\n%s", dir, err, out)
	}
	return bin
}
