package process

import (
	"os"
	"path/filepath"
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
