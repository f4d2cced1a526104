package main

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// outcome keeps the decision to replace --out and the stop signals under
// one lock, so that what opcert says and its exit status are always true
// of --out:
//
//   - a signal that comes before --out is replaced stops the command: --out
//     is not replaced from then on (commitReport refuses), and the exit is
//     128+n saying it was left as it was;
//   - a signal that comes once --out was replaced changes nothing: the work
//     is done and its report written, so the exit status is the report's
//     (0, 1 or 3), and opcert says the signal came too late to matter;
//   - watch, whose first signal means "judge what was recorded and write
//     it", replaces --out after it and exits 128+n (writesAfterSignal);
//   - a second signal stops at once: a swap under way completes first, and
//     the message says whether --out holds a new report.
type outcome struct {
	mu  sync.Mutex
	sig syscall.Signal // the first stop signal, 0 before one
	// writesAfterSignal: the command's first signal asks for the reports.
	writesAfterSignal bool
	out               string // the --out replaced last, "" if none
	before            bool   // it was replaced before the first signal
	verdict           error  // what the command returns having replaced it
}

var decided outcome

// commitReport swaps the complete report in staging in for out, unless a
// stop signal came first (then the error says out was left as it was);
// verdict is what the command will return once the report is in place.
func commitReport(staging, out string, verdict error) error {
	if err := writeManifest(staging); err != nil {
		return envError{fmt.Errorf("report directory %s: %w", out, err)}
	}
	decided.mu.Lock()
	if decided.sig != 0 && !decided.writesAfterSignal {
		sig := decided.sig
		decided.mu.Unlock()
		return fmt.Errorf("%w; %s was left as it was", signalled{sig}, out)
	}
	old, err := swapIn(staging, out)
	if err == nil {
		decided.out, decided.verdict, decided.before = out, verdict, decided.sig == 0
	}
	decided.mu.Unlock()
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return err
}

// writtenBeforeSignal is the --out replaced before the first signal by a
// command whose signal does not ask for reports: its run is over.
func (o *outcome) writtenBeforeSignal() (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.out, o.before && !o.writesAfterSignal
}

// first records the first stop signal and says what it does.
func (o *outcome) first(sig syscall.Signal) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sig = sig
	if o.before && !o.writesAfterSignal {
		return fmt.Sprintf("the reports were already written to %s; finishing", o.out)
	}
	return *interruptNote.Load()
}

// atOnce is the second signal's exit: it takes the lock for good, so that
// nothing is replaced from then on, and returns the exit status and what
// to say of --out.
func (o *outcome) atOnce() (int, string) {
	o.mu.Lock()
	switch {
	case o.out != "" && o.before && !o.writesAfterSignal:
		return statusOf(o.verdict), fmt.Sprintf("the reports in %s were written before the first signal", o.out)
	case o.out != "":
		return 128 + int(o.sig), fmt.Sprintf("%s holds the reports of the last judging", o.out)
	}
	return 128 + int(o.sig), "the report directory was left as it was"
}

// interrupted is what exitCode says of --out after a signal ended the
// command.
func (o *outcome) interrupted() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.out != "" && o.writesAfterSignal {
		return "reports written to " + o.out
	}
	return "the report directory was left as it was"
}

// statusOf is the exit status of a command's result, as exitCode gives it.
func statusOf(err error) int {
	var env envError
	switch {
	case err == nil:
		return exitPass
	case errors.Is(err, errRulesFailed):
		return exitFail
	case errors.Is(err, errNotJudged):
		return exitNotJudged
	case errors.As(err, &env):
		return exitEnv
	}
	return exitUsage
}
