package conformance

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/opcert/opcert/process"
)

// noAudit is a Host with no API server behind it: enough to start and stop
// processes.
type noAudit struct{}

func (noAudit) AddUser(string, string) ([]byte, *rest.Config, error) {
	return []byte("kind: Config\n"), &rest.Config{}, nil
}
func (noAudit) RESTConfig() *rest.Config { return &rest.Config{Host: "https://127.0.0.1:1"} }
func (noAudit) Writer(context.Context, string, time.Duration) (string, error) {
	return "", errors.New("no audit here")
}

// The end of a run asks each process still running to stop (SIGTERM) and
// kills only the one that does not within the grace, all at once; the
// report says which did what, and no process of either is left.
func TestCloseStopsProcessesGracefully(t *testing.T) {
	defer func(g time.Duration) { stopGrace = g }(stopGrace)
	stopGrace = 500 * time.Millisecond
	p, err := NewProcesses(noAudit{}, t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{
		"operator/polite":   `trap 'exit 0' TERM; echo $$ > "$OPCERT_NAME.pid"; sleep 300 & wait`,
		"operator/stubborn": `trap '' TERM; echo $$ > "$OPCERT_NAME.pid"; sleep 300 & wait; sleep 300`,
	}
	dir := t.TempDir()
	for name, script := range scripts {
		if err := p.Start(name, "operator", dir+"/"+name[len("operator/"):], process.Command{"sh", "-c", script}); err != nil {
			t.Fatal(err)
		}
	}
	pids := map[string]int{}
	for name := range scripts {
		pids[name] = pidOf(t, dir+"/"+name[len("operator/"):]+".pid")
	}
	start := time.Now()
	ended := p.Close()
	if took := time.Since(start); took > 2*stopGrace+5*time.Second {
		t.Errorf("Close took %s: the processes were not stopped together", took)
	}
	want := map[string]*regexp.Regexp{
		"operator/polite":   regexp.MustCompile(`^running at the end of the run, stopped by opcert with SIGTERM after [^ ]+ \(exited with status 0\)$`),
		"operator/stubborn": regexp.MustCompile(`^running at the end of the run, killed by opcert after 500ms \(SIGKILL\): did not stop on SIGTERM$`),
	}
	if len(ended) != 2 {
		t.Fatalf("processes %+v", ended)
	}
	for _, e := range ended {
		if len(e.Endings) != 1 || !want[e.Name].MatchString(e.Endings[0]) || e.Unasked != 0 {
			t.Errorf("%s: endings %q, unasked %d; want %s", e.Name, e.Endings, e.Unasked, want[e.Name])
		}
	}
	for name, pid := range pids {
		// A child killed with its group may be a zombie for an instant,
		// until init reaps it.
		for gone := time.Now().Add(10 * time.Second); syscall.Kill(-pid, 0) == nil && time.Now().Before(gone); {
			time.Sleep(20 * time.Millisecond)
		}
		if err := syscall.Kill(-pid, 0); err == nil {
			t.Errorf("%s: a process of group %d is left", name, pid)
		}
	}
}

func pidOf(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var pid int
		if data, err := os.ReadFile(path); err == nil {
			if _, err := fmt.Sscan(string(data), &pid); err == nil && pid > 0 {
				return pid
			}
		}
	}
	t.Fatalf("no pid in %s", path)
	return 0
}
