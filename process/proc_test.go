package process

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartKillEnding(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "out.log")
	// A shell that starts a child, says so, and waits: Kill must take both.
	p, err := Start(Options{Argv: []string{"sh", "-c", `sleep 300 & echo "child $! of $NAME"; wait`}, Env: []string{"NAME=etcd"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	var child int
	deadline := time.Now().Add(5 * time.Second)
	for child == 0 && time.Now().Before(deadline) {
		data, _ := os.ReadFile(log)
		if f := strings.Fields(string(data)); len(f) == 4 && f[3] == "etcd" {
			child, _ = strconv.Atoi(f[1])
		}
		time.Sleep(10 * time.Millisecond)
	}
	if child == 0 {
		t.Fatal("the process did not report its child")
	}
	if got := p.Ending(); got != "running" {
		t.Errorf("Ending before Kill = %q", got)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := p.Ending(); got != "killed by opcert (SIGKILL)" {
		t.Errorf("Ending = %q", got)
	}
	// The child went with its group (it may linger as a zombie of init for
	// an instant: signal 0 fails once it is reaped).
	gone := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil && time.Now().Before(gone) {
		time.Sleep(10 * time.Millisecond)
	}
	if syscall.Kill(child, 0) == nil && !zombie(child) {
		t.Errorf("child %d outlived its group's kill", child)
	}

	q, err := Start(Options{Argv: []string{"sh", "-c", "exit 3"}, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	<-q.Done()
	if got := q.Ending(); got != "exited with status 3" {
		t.Errorf("Ending = %q", got)
	}
	if _, err := Start(Options{Argv: []string{filepath.Join(dir, "nope")}, Log: log}); err == nil {
		t.Error("a missing executable started")
	}
}

func zombie(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	f := strings.Fields(string(data))
	return len(f) > 2 && f[2] == "Z"
}

// Stop asks first: a process that exits on SIGTERM is "stopped", with how
// it exited; one that ignores it is killed, with its group, once the grace
// is over. Either way nothing of its group is left.
func TestStopAsksThenKills(t *testing.T) {
	for _, c := range []struct {
		name, script, want string
	}{
		{"exits on SIGTERM", `trap 'exit 0' TERM; sleep 300 & echo "child $!"; wait`, `^stopped by opcert with SIGTERM after \d+(\.\d+)?m?s \(exited with status 0\)$`},
		{"dies of SIGTERM", `sleep 300 & echo "child $!"; exec sleep 300`, `^stopped by opcert with SIGTERM after \d+(\.\d+)?m?s \(killed by SIGTERM\)$`},
		{"ignores SIGTERM", `trap '' TERM; sleep 300 & echo "child $!"; wait`, `^killed by opcert after 300ms \(SIGKILL\): did not stop on SIGTERM$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "out.log")
			p, err := Start(Options{Argv: []string{"sh", "-c", c.script}, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			child := childOf(t, log)
			got, err := p.Stop(300 * time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(c.want).MatchString(got) || p.Ending() != got {
				t.Errorf("Stop = %q, Ending = %q, want %s", got, p.Ending(), c.want)
			}
			if !p.Asked() {
				t.Error("a stopped process counts as ended on its own")
			}
			gone := time.Now().Add(5 * time.Second)
			for syscall.Kill(child, 0) == nil && !zombie(child) && time.Now().Before(gone) {
				time.Sleep(10 * time.Millisecond)
			}
			if syscall.Kill(child, 0) == nil && !zombie(child) {
				t.Errorf("child %d outlived its group's stop", child)
			}
		})
	}
}

// childOf waits for the process to write "child PID" to its log.
func childOf(t *testing.T, log string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(log)
		if f := strings.Fields(string(data)); len(f) == 2 && f[0] == "child" {
			if pid, err := strconv.Atoi(f[1]); err == nil {
				return pid
			}
		}
	}
	t.Fatal("the process did not report its child")
	return 0
}
