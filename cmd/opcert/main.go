// Command opcert runs conformance scenarios for operator status mechanisms
// against reference and user subjects, on a real API server in virtual time,
// and writes JUnit, JSON and Markdown reports.
//
// Exit codes, each with one meaning:
//
//	0    every rule and expectation passed
//	1    a rule or expectation failed (the subjects' fault)
//	2    the input's fault: flags, scenario files (including a step the API
//	     server refuses), the --out directory; nothing is written
//	3    the environment's fault: no binaries, a port in use, the API server
//	     or etcd dying mid-run (the report marks that run ERROR), a disk error
//	4    nothing failed, but a run proved nothing (NOT JUDGED): a subject
//	     under test never acted or ended without being asked, or no rule
//	     could judge the run; a CI job must not count it a pass
//	128+n  stopped by signal n (130 for Ctrl-C, 143 for SIGTERM, 131 for
//	     SIGQUIT, which stops opcert as the others do rather than dump its
//	     goroutines); the report directory is left as it was. A signal
//	     that comes once the report directory was replaced changes
//	     nothing: the exit status is the report's (outcome.go)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/visible"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// Exit codes.
const (
	exitPass  = 0
	exitFail  = 1
	exitUsage = 2
	exitEnv   = 3
	// exitNotJudged: no rule failed, yet a run proved nothing of its
	// subjects (reports.NotJudged).
	exitNotJudged = 4
)

// errRulesFailed tells main that the run completed and a rule failed.
var errRulesFailed = errors.New("some rules failed")

// errNotJudged tells main that nothing failed but a run proved nothing of
// its subjects (reports.NotJudged): exit 4.
var errNotJudged = errors.New("a run proved nothing of its subjects")

// exitVerdict is the error a command returns for a report it wrote: the
// rules failed (exit 1), a run proved nothing (exit 4), or nil.
func exitVerdict(rep *reports.Report) error {
	switch {
	case rep.Failed():
		return errRulesFailed
	case len(rep.Missing) > 0:
		return incomplete(rep)
	case rep.Unjudged():
		return errNotJudged
	}
	return nil
}

// envError marks an error as the environment's fault (exit 3).
type envError struct{ error }

func (e envError) Unwrap() error { return e.error }

// signalled is the cause a signal cancels the command's context with.
type signalled struct{ sig syscall.Signal }

func (s signalled) Error() string {
	return fmt.Sprintf("%s (%s)", conformance.ErrInterrupted, signalName(s.sig))
}
func (s signalled) Unwrap() error { return conformance.ErrInterrupted }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT, Ctrl-C"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return sig.String()
}

func main() {
	apiserver.MaybeLaunch()
	apiserver.BecomeSubreaper()
	ctrllog.SetLogger(onceEach(os.Stderr))
	ctx, cancel := context.WithCancelCause(context.Background())
	go onSignals(cancel)
	err := newRoot().ExecuteContext(ctx)
	code := exitCode(ctx, err)
	apiserver.KillDescendants()
	os.Exit(code)
}

// onceEach is the logger of what controller-runtime logs in opcert (the
// API server's warnings on a request): each distinct line said once on w,
// since the same warning comes back with every write of its kind. Without
// a logger controller-runtime would print a stack trace instead.
func onceEach(w io.Writer) logr.Logger {
	var mu sync.Mutex
	said := map[string]bool{}
	return funcr.New(func(prefix, args string) {
		line := strings.TrimSpace(prefix + " " + args)
		mu.Lock()
		defer mu.Unlock()
		if !said[line] {
			said[line] = true
			fmt.Fprintln(w, "opcert:", shown(line))
		}
	}, funcr.Options{})
}

// onSignals turns the first SIGINT, SIGTERM, SIGHUP or SIGQUIT into a
// cancelled context, so that every exit path stops the API server and
// removes what opcert wrote; a second one kills the API server and every
// descendant at once and exits. Whether --out is replaced is decided
// under the same lock as the signal (outcome.go).
//
// SIGPIPE is received and dropped: a closed stdout (opcert run | head -1)
// then fails writes with EPIPE, which the summary ignores, instead of
// killing opcert before it stops its children. (Go delivers SIGPIPE for
// every descriptor once it is notified, sockets to a dying API server
// included, so it cannot mean "stop".)
func onSignals(cancel context.CancelCauseFunc) {
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	go func() {
		for range pipes {
		}
	}()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	first := (<-sigs).(syscall.Signal)
	note := decided.first(first)
	cancel(signalled{first})
	fmt.Fprintf(os.Stderr, "\nopcert: %s: %s (again to stop at once)\n", signalName(first), note)
	<-sigs
	code, said := decided.atOnce() // holds the lock: nothing is replaced from now on
	removeStaged()
	apiserver.Abort()
	apiserver.KillDescendants()
	fmt.Fprintf(os.Stderr, "opcert: stopped at once: %s\n", said)
	os.Exit(code)
}

// interruptNote says what the first signal does; a command that does
// something else than stop (watch judges what it recorded) says so.
var interruptNote atomic.Pointer[string]

func init() {
	note := "stopping the API server and leaving the report directory as it was"
	interruptNote.Store(&note)
}

// shown is text opcert prints that may hold what a user or a server gave
// (an error naming a --subject or a kubeconfig's server, an API server's
// warning): secret-looking values and URL credentials redacted, control
// characters made visible, newlines kept.
func shown(text string) string { return visible.Text(redact.Text(text)) }

func exitCode(ctx context.Context, err error) int {
	var sig signalled
	if errors.As(context.Cause(ctx), &sig) {
		if out, done := decided.writtenBeforeSignal(); done {
			fmt.Fprintf(os.Stderr, "opcert: %s came after the reports were written to %s: the exit status is theirs\n", signalName(sig.sig), out)
			sig.sig = 0
		}
	}
	if sig.sig != 0 {
		if err != nil && !errors.Is(err, conformance.ErrInterrupted) && !errors.Is(err, errRulesFailed) && !errors.Is(err, errNotJudged) {
			fmt.Fprintln(os.Stderr, "opcert:", shown(err.Error()))
		}
		fmt.Fprintf(os.Stderr, "opcert: interrupted: %s; %s\n", signalName(sig.sig), decided.interrupted())
		return 128 + int(sig.sig)
	}
	switch {
	case err == nil:
		return exitPass
	case errors.Is(err, errRulesFailed):
		return exitFail
	case errors.Is(err, errNotJudged):
		return exitNotJudged
	}
	fmt.Fprintln(os.Stderr, "opcert:", shown(err.Error()))
	var env envError
	if errors.As(err, &env) {
		return exitEnv
	}
	return exitUsage
}
