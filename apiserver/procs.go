package apiserver

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A run directory holds everything one Server puts on disk: the launcher
// symlinks, the pid of each process, etcd's data and the API server's
// certificates. Stop removes it; a Server whose opcert was killed outright
// leaves it behind, and the next Start removes it (the owner file names a
// process that is gone).
const (
	runDirPattern = "opcert-world-*"
	ownerFile     = "owner"
	pidDir        = "pids"
)

// proc identifies a process across pid reuse: a pid and its start time in
// clock ticks since boot, as /proc/<pid>/stat gives it on linux (stat).
type proc struct {
	pid   int
	start string
}

func (p proc) String() string { return strconv.Itoa(p.pid) + " " + p.start }

func parseProc(s string) (proc, error) {
	pid, start, ok := strings.Cut(strings.TrimSpace(s), " ")
	n, err := strconv.Atoi(pid)
	if !ok || err != nil || n <= 0 || start == "" {
		return proc{}, fmt.Errorf("not a process record: %q", s)
	}
	return proc{pid: n, start: start}, nil
}

// self is this process.
func self() (proc, error) {
	start, _, err := stat(os.Getpid())
	return proc{pid: os.Getpid(), start: start}, err
}

// running tells whether p is still the same live (not zombie) process.
func (p proc) running() bool {
	start, state, err := stat(p.pid)
	return err == nil && start == p.start && state != 'Z'
}

// kill sends SIGKILL to p's process group (envtest starts each binary in a
// group of its own) and to p, if p is still the process it was.
func (p proc) kill() {
	if p.running() {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
}

// recordPid is the launcher's half: it writes its own record under dir.
func recordPid(dir, name string) error {
	me, err := self()
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, pidDir, name), []byte(me.String()), 0o644)
}

// newRunDir makes a run directory owned by this process.
func newRunDir() (string, error) {
	dir, err := os.MkdirTemp("", runDirPattern)
	if err != nil {
		return "", err
	}
	me, err := self()
	if err == nil {
		err = os.Mkdir(filepath.Join(dir, pidDir), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, ownerFile), []byte(me.String()), 0o644)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("run directory %s: %w", dir, err)
	}
	return dir, nil
}

// processes lists the processes recorded in a run directory.
func processes(dir string) map[string]proc {
	out := map[string]proc{}
	entries, _ := os.ReadDir(filepath.Join(dir, pidDir))
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, pidDir, e.Name()))
		if err != nil {
			continue
		}
		if p, err := parseProc(string(data)); err == nil {
			out[e.Name()] = p
		}
	}
	return out
}

// killAndRemove ends every process recorded in dir and removes dir.
func killAndRemove(dir string) error {
	for _, p := range processes(dir) {
		p.kill()
	}
	return os.RemoveAll(dir)
}

// sweep removes the run directories left by opcert processes that are gone
// (killed with SIGKILL: their children died with them, their files did not),
// and kills what is left of their descendants: a process that detached
// itself from its parent (setsid) escapes the parent-death signal, but it
// still carries the run directory in its environment, inherited from
// opcert, which names the dead run and no other.
func sweep() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), runDirPattern))
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or still being made
		}
		if owner, err := parseProc(string(data)); err == nil && !owner.running() {
			killCarrying(envRunDir + "=" + dir)
			_ = killAndRemove(dir)
		}
	}
}
