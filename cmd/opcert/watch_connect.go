package main

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/rest"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/redact"
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
			return "", envError{fmt.Errorf("the cluster at %s: %w", redact.URLs(cfg.Host), a.err)}
		}
		return a.version, nil
	case <-ctx.Done():
		apiserver.KillDescendants()
		if context.Cause(ctx) == context.DeadlineExceeded && duration > 0 {
			return "", envError{fmt.Errorf("the cluster at %s did not answer within --for %s%s", redact.URLs(cfg.Host), duration, plugin)}
		}
		return "", context.Cause(ctx)
	case <-timeout.C:
		apiserver.KillDescendants()
		return "", envError{fmt.Errorf("the cluster at %s did not answer within %s%s", redact.URLs(cfg.Host), connectTimeout, plugin)}
	}
}
