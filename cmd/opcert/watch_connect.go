package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

// watchConnect asks the cluster its version, giving up when ctx is done
// (Ctrl-C, --for) or after connectTimeout. The first request also runs
// the kubeconfig's exec credential plugin, if any, which client-go runs
// with no timeout and no context: a plugin that hangs (waiting for a
// login that never comes) held opcert past --for and Ctrl-C. Giving up
// kills what client-go started (the plugin and its children), which
// would outlive opcert otherwise.
func watchConnect(ctx context.Context, cfg *rest.Config, duration time.Duration) (string, error) {
	type answer struct {
		version string
		err     error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := serverVersion(cfg)
		done <- answer{v, err}
	}()
	timeout := time.NewTimer(connectTimeout)
	defer timeout.Stop()
	plugin := ""
	if cfg.ExecProvider != nil {
		plugin = fmt.Sprintf(" (its kubeconfig's credential plugin %s may be waiting for something)", cfg.ExecProvider.Command)
	}
	select {
	case a := <-done:
		if a.err != nil {
			return "", envError{fmt.Errorf("the cluster at %s: %w", cfg.Host, a.err)}
		}
		return a.version, nil
	case <-ctx.Done():
		killDescendants()
		if context.Cause(ctx) == context.DeadlineExceeded && duration > 0 {
			return "", envError{fmt.Errorf("the cluster at %s did not answer within --for %s%s", cfg.Host, duration, plugin)}
		}
		return "", context.Cause(ctx)
	case <-timeout.C:
		killDescendants()
		return "", envError{fmt.Errorf("the cluster at %s did not answer within %s%s", cfg.Host, connectTimeout, plugin)}
	}
}

// killDescendants kills every process this one started, and theirs: in
// watch, only client-go's credential plugins, which it starts in opcert's
// own process group (so the group cannot be killed) and never stops.
func killDescendants() {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, stat := range stats {
		data, err := os.ReadFile(stat)
		if err != nil {
			continue
		}
		// After the command name, in parentheses that may hold anything:
		// the state, then the parent's pid.
		i := strings.LastIndexByte(string(data), ')')
		f := strings.Fields(string(data[i+1:]))
		if i < 0 || len(f) < 2 {
			continue
		}
		pid, err1 := strconv.Atoi(filepath.Base(filepath.Dir(stat)))
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var kill func(int)
	kill = func(pid int) {
		for _, c := range children[pid] {
			_ = syscall.Kill(c, syscall.SIGKILL)
			kill(c)
		}
	}
	kill(os.Getpid())
}
