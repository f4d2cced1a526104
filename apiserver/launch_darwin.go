package apiserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// guardParent watches opcert with kqueue (darwin has no parent-death
// signal): when it exits, by any means, the launcher kills its own
// descendants (the real binary, a probe's group) and exits. Registered
// after opcert is gone, the watch fails with ESRCH: the launcher stops.
func guardParent() error {
	kq, err := unix.Kqueue()
	if err != nil {
		return fmt.Errorf("kqueue: %w", err)
	}
	ev := unix.Kevent_t{Ident: uint64(os.Getppid()), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil {
		return fmt.Errorf("watching opcert (process %d): %w", os.Getppid(), err)
	}
	go func() {
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil || n > 0 {
				break
			}
		}
		for _, pid := range Descendants(os.Getpid()) {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		os.Exit(1)
	}()
	return nil
}

// run starts the real binary as the launcher's child (an exec would drop
// guardParent's watch), records the child's pid as role's, passes it the
// stop signals the launcher receives, and exits as it exits.
func run(bin, role string, args []string) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "opcert launcher: starting %s: %v\n", bin, err)
		return 1
	}
	if err := recordChild(os.Getenv(envRunDir), role, cmd.Process.Pid); err != nil {
		fmt.Fprintln(os.Stderr, "opcert launcher:", err)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return 1
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "opcert launcher: %s: %v\n", bin, err)
		return 1
	}
	return 0
}

// groupAttr is a process group of its own; guardParent, not the kernel,
// kills it when opcert dies.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// recordChild writes the record of the launcher's child pid under dir.
func recordChild(dir, name string, pid int) error {
	start, _, err := stat(pid)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, pidDir, name), []byte(proc{pid: pid, start: start}.String()), 0o644)
}
