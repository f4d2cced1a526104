package apiserver

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// guardParent asks the kernel to kill the launcher when opcert dies. The
// parent-death signal belongs to the thread that sets it and survives exec
// only on that thread: this goroutine stays on it until run's exec.
func guardParent() error {
	runtime.LockOSThread()
	return unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
}

// run records the launcher's pid as role's and replaces the launcher with
// the real binary, which keeps the pid and the parent-death signal.
func run(bin, role string, args []string) int {
	if err := recordPid(os.Getenv(envRunDir), role); err != nil {
		fmt.Fprintln(os.Stderr, "opcert launcher:", err)
		return 1
	}
	err := syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "opcert launcher: starting %s: %v\n", bin, err)
	return 1
}

// groupAttr is a process group of its own that dies with this process.
func groupAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
