package process

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Options say how to start one process.
type Options struct {
	// Argv is the command line: the executable, then its arguments.
	Argv []string
	// Env is added to opcert's environment (KUBECONFIG, OPCERT_NAME...).
	Env []string
	// Log receives the process's standard output and error.
	Log string
}

// Proc is a running (or ended) process that opcert started.
type Proc struct {
	cmd  *exec.Cmd
	log  *os.File
	done chan struct{}

	mu     sync.Mutex
	killed bool // by opcert
	// stop is how Stop ended the process; empty if it did not.
	stop string
	err  error
}

// stopWait bounds how long Kill waits for the group to be reaped.
const stopWait = 10 * time.Second

// Start runs argv in a process group of its own, its output appended to
// o.Log. On linux the parent-death signal is set so that it dies if opcert
// does (even by SIGKILL); darwin has none (sysProcAttr).
func Start(o Options) (*Proc, error) {
	if len(o.Argv) == 0 {
		return nil, errors.New("no command to run")
	}
	log, err := os.OpenFile(o.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(o.Argv[0], o.Argv[1:]...)
	cmd.Env = append(os.Environ(), o.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	// Its output is a file (no copying to wait for), but a bound costs
	// nothing and keeps Kill's wait bounded if that changes.
	cmd.WaitDelay = stopWait
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, fmt.Errorf("starting %s: %w", o.Argv[0], err)
	}
	p := &Proc{cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		log.Close()
		close(p.done)
	}()
	return p, nil
}

// Pid is the process's id (and its group's).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Done is closed when the process has ended and been reaped.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Kill sends SIGKILL to the process's group (its children too) and waits
// for it to be reaped, at most stopWait.
func (p *Proc) Kill() error {
	select {
	case <-p.done:
		return nil
	default:
	}
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(stopWait):
		return fmt.Errorf("process %d did not end %s after SIGKILL", p.Pid(), stopWait)
	}
}

// Stop ends the process as a node stops a pod, so that an operator can
// release what it holds (a leader lease, a status it owns): SIGTERM to its
// group, up to grace for it to exit, then SIGKILL to the group, which also
// takes any child that outlived it. It waits for the process to be reaped
// (at most stopWait after the SIGKILL) and returns how it ended, as Ending
// then says it. A process that had already ended is left as it was.
func (p *Proc) Stop(grace time.Duration) (string, error) {
	select {
	case <-p.done:
		return p.Ending(), nil
	default:
	}
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	start := time.Now()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return p.Ending(), err
	}
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-p.done:
		took := time.Since(start).Round(time.Millisecond)
		// Its children may have stayed behind: they go with the group.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.mu.Lock()
		p.stop = fmt.Sprintf("stopped by opcert with SIGTERM after %s (%s)", took, p.exit())
		p.mu.Unlock()
		return p.Ending(), nil
	case <-timer.C:
	}
	p.mu.Lock()
	p.stop = fmt.Sprintf("killed by opcert after %s (SIGKILL): did not stop on SIGTERM", grace)
	p.mu.Unlock()
	if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return p.Ending(), err
	}
	select {
	case <-p.done:
		return p.Ending(), nil
	case <-time.After(stopWait):
		return p.Ending(), fmt.Errorf("process %d did not end %s after SIGKILL", p.Pid(), stopWait)
	}
}

// Asked tells whether opcert ended the process (Kill, Stop); false for a
// process that runs or ended on its own.
func (p *Proc) Asked() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.killed
}

// Succeeded tells whether the process ended by itself with status 0.
func (p *Proc) Succeeded() bool {
	select {
	case <-p.done:
	default:
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.killed && p.err == nil
}

// Ending says how the process ended, for the report: "running", "killed
// by opcert (SIGKILL)", how Stop ended it, "exited with status N", or
// "killed by signal S".
func (p *Proc) Ending() string {
	select {
	case <-p.done:
	default:
		return "running"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.stop != "":
		return p.stop
	case p.killed:
		return "killed by opcert (SIGKILL)"
	}
	return p.exit()
}

// exit says how the ended process exited; p.mu is held.
func (p *Proc) exit() string {
	var exit *exec.ExitError
	if !errors.As(p.err, &exit) {
		if p.err != nil {
			return p.err.Error()
		}
		return "exited with status 0"
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + signalName(ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", exit.ExitCode())
}

// signalName names the signals a process is usually ended by as a reader
// knows them (SIGTERM, not "terminated").
func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL", syscall.SIGINT: "SIGINT",
		syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGABRT: "SIGABRT", syscall.SIGSEGV: "SIGSEGV"}
	if n, ok := names[s]; ok {
		return n
	}
	return "signal " + s.String()
}
