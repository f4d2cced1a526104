package conformance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// Causes a caller gives the context it passes to Play (context.WithCancelCause)
// so that a run it stops is not judged as if its subjects had failed.
var (
	// ErrInterrupted: a signal asked opcert to stop.
	ErrInterrupted = errors.New("interrupted")
	// ErrEnvironment: the API server or etcd stopped serving.
	ErrEnvironment = errors.New("the API server stopped serving")
)

// StepError is a scenario step the API server refused (a namespace that
// does not exist, an invalid object), that the client refused to send (a
// kind the server does not serve, a namespaced kind without a namespace),
// or that cannot be carried out in the run's world (Cannot: an apiErrors
// step naming an actor that never started): the scenario's fault, not the
// subjects'.
type StepError struct {
	Source string // the scenario file
	// Line is the step's line in Source, from 1.
	Line int
	// At is the step's time in the scenario.
	At time.Duration
	// Err is why the step was refused or cannot be carried out.
	Err error
	// Cannot is true when the run's world cannot carry out the step (no refusal by a server or client).
	Cannot bool
}

// Error names the step's file, line and time, and who refused it.
func (e *StepError) Error() string {
	who := "the client refused to send it"
	switch {
	case e.Cannot:
		who = "it cannot be carried out"
	case refused(e.Err):
		who = "the API server refused it"
	}
	return fmt.Sprintf("%s:%d: step at +%s: %s: %v", e.Source, e.Line, e.At, who, e.Err)
}

// Unwrap is the step's own error, for errors.Is and errors.As.
func (e *StepError) Unwrap() error { return e.Err }

// refused tells whether err is the API server's answer to a request (as
// opposed to the request never reaching it).
func refused(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status)
}

// stepFault tells whether err, from carrying out a scenario step, is the
// step's own: the API server refused it, or the client refused to send it
// (meta.NoKindMatchError for a kind the server does not serve, client-go's
// "an empty namespace may not be set" for a namespaced kind without one,
// an object that does not decode). The client's refusals have no common
// type, so the step is held to every error but those on the way: the
// connection (a url.Error, a net.Error, an errno, an EOF), an actor cut off
// (sim.ErrCutOff) or ctx ending, which stopReason blames on the
// environment or the caller. No error of a step is the subjects'.
func stepFault(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if refused(err) {
		return true
	}
	var urlErr *url.Error
	var netErr net.Error
	var errno syscall.Errno
	switch {
	case errors.As(err, &urlErr), errors.As(err, &netErr), errors.As(err, &errno),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, sim.ErrCutOff),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return true
}

// environmentVerdict bounds how long stopReason waits to learn whether the
// API server died: the world notices a dead process within its check
// period (a second), and a request cut off by the death can fail first.
const environmentVerdict = 3 * time.Second

// stopReason classifies why Run returned err before the scenario's end. An
// error that is neither a step's nor a subject's own (a wall-clock stamp)
// may be the API server dying under a request ("unexpected EOF"): the
// caller's context says so once the world notices, so it is waited for,
// boundedly, before the subject is held to it.
func stopReason(ctx context.Context, err error) reports.Stop {
	var step *StepError
	var stamp *sim.WallClockError
	if context.Cause(ctx) == nil && !errors.As(err, &step) && !errors.As(err, &stamp) {
		t := time.NewTimer(environmentVerdict)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	switch cause := context.Cause(ctx); {
	case cause != nil && errors.Is(cause, ErrEnvironment):
		return reports.StopEnvironment
	case cause != nil:
		return reports.StopInterrupted
	case errors.As(err, &step):
		return reports.StopScenario
	}
	return reports.StopSubject
}

// notJudged is every rule marked as such, with why.
func notJudged(rules []judge.Rule, why string) []reports.Case {
	out := make([]reports.Case, 0, len(rules))
	for _, r := range rules {
		out = append(out, reports.Case{Rule: r.ID, Section: r.Section, Statement: r.Statement, Role: r.Role,
			Status: reports.Skip, Message: "not judged: " + why})
	}
	return out
}

// before keeps the events that happened before cut: at the instant a run
// stopped, work may have been cut off half done.
func before(events []timeline.Event, cut time.Time) []timeline.Event {
	for i, e := range events {
		if !e.Time.Before(cut) {
			return events[:i]
		}
	}
	return events
}
