package apiserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// The launcher: envtest starts its binaries itself and offers no hook to set
// the parent-death signal or to bound `--help`, so it is pointed at symlinks
// to opcert's own executable named kube-apiserver and etcd. Started under
// those names with these variables set, opcert becomes the launcher: it asks
// that it dies when opcert dies (even by SIGKILL), records the pid of the
// real binary and runs it (guardParent and run, per platform: on linux the
// kernel's parent-death signal and exec, which keeps the pid and the
// signal; on darwin a kqueue watch of opcert and a child). A `--help` or `--version` probe runs the real binary
// under a timeout instead, so a binary that hangs cannot hang opcert.
const (
	envAssets = "OPCERT_LAUNCH_ASSETS" // the directory of the real binaries
	envParent = "OPCERT_LAUNCH_PARENT" // opcert's pid
	envRunDir = "OPCERT_LAUNCH_RUNDIR" // where to record the pid
)

// probeSuffix marks the pid record of a probe, which is meant to end.
const probeSuffix = "-probe"

// probeTimeout bounds `--help` and `--version`: both answer in well under a second.
const probeTimeout = 15 * time.Second

var launched = map[string]bool{"kube-apiserver": true, "etcd": true}

// MaybeLaunch turns this process into the launcher of kube-apiserver or etcd
// when it was started as one; otherwise it returns at once. Call it first in
// main and in the TestMain of every package whose tests start a Server.
func MaybeLaunch() {
	assets, name := os.Getenv(envAssets), filepath.Base(os.Args[0])
	if assets == "" || !launched[name] {
		return
	}
	os.Exit(launch(filepath.Join(assets, name), os.Args[1:]))
}

func launch(bin string, args []string) int {
	if err := guardParent(); err != nil {
		fmt.Fprintln(os.Stderr, "opcert launcher:", err)
		return 1
	}
	if strconv.Itoa(os.Getppid()) != os.Getenv(envParent) {
		return 1 // opcert died before the guard was armed
	}
	role, probing := filepath.Base(bin), len(args) == 1 && (args[0] == "--help" || args[0] == "--version")
	if !probing {
		return run(bin, role, args)
	}
	if err := recordPid(os.Getenv(envRunDir), role+probeSuffix); err != nil {
		fmt.Fprintln(os.Stderr, "opcert launcher:", err)
		return 1
	}
	return probe(bin, args[0])
}

func probe(bin, flag string) int {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, flag)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	boundWait(cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		fmt.Fprintf(os.Stderr, "%s %s did not answer in %s\n", bin, flag, probeTimeout)
		return 1
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n", bin, flag, err)
		return 1
	}
	return 0
}

// waitDelay bounds how long a command's Wait waits, once the command is
// killed or has exited, for its output to close: a wrapper script's child
// that hangs keeps the pipe open, and held opcert for ever.
const waitDelay = 2 * time.Second

// boundWait makes cmd end as a whole: it runs in a process group of its
// own, killed together (a wrapper and its children) when its context is
// done, dies with this process (on linux: groupAttr), and its Wait returns at most waitDelay
// after that.
func boundWait(cmd *exec.Cmd) {
	cmd.SysProcAttr = groupAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = waitDelay
}
