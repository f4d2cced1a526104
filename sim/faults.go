package sim

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/sim/timeline"
)

// API faults: the calls of one actor, or of every actor of a role, fail
// with an API error for a while, as an API server under load, a flaky
// etcd or a writer racing the actor would answer them. The error is the
// one client-go hands a reconciler (apimachinery's *StatusError, so
// apierrors.IsConflict, IsTooManyRequests, SuggestsClientDelay... read it
// as they would), at once: client-go's own retries of a Retry-After wait
// in wall time and are not replayed, so what a fault tests is the
// reconciler's retry. The fault is on the calls, not on the watch: the
// actor is still told of writes (hang cuts both).
//
// On the timeline each actor the fault reaches gets a fault event (Process
// kind, like hang) when the fault starts, or when the actor starts during
// it, and a clear event when it ends; its failed writes are recorded as
// failed writes, Detail the error. Reads are not recorded.

// Calls are the calls a fault fails.
type Calls int

const (
	// Reads are Get and List.
	Reads Calls = 1 << iota
	// Writes are Create, Update, Patch, Delete and the status writes.
	Writes
)

// String is reads, writes, or reads and writes, as the timeline names
// them.
func (c Calls) String() string {
	switch c {
	case Reads:
		return "reads"
	case Writes:
		return "writes"
	case Reads | Writes:
		return "reads and writes"
	}
	return fmt.Sprintf("Calls(%d)", int(c))
}

// APIFault says whose calls fail, which, and how.
type APIFault struct {
	// Role is the role of the actors whose calls fail; Actor, if set, is
	// the one actor of it whose calls fail (else every actor of Role).
	Role, Actor string
	// Calls are which calls fail: Reads, Writes or both.
	Calls Calls
	// Kinds, if set, are the only kinds whose calls fail (a list's kind
	// is its items'); the role's calls on other kinds succeed, so that an
	// operator whose writes to its operands are refused can still report
	// it on its own status. None: calls on every kind fail.
	Kinds []schema.GroupKind
	// Code is the HTTP status the calls get: 409 (Conflict, writes only),
	// 429 (TooManyRequests), 500 (InternalError), 503 (ServiceUnavailable)
	// or 504 (Timeout).
	Code int
	// RetryAfter is the delay a 429 or 504 asks the client to wait
	// (Retry-After, whole seconds; 0: none).
	RetryAfter time.Duration
	// Perturbation says a perturbation injects it (perturb.go): its
	// events' Details say so.
	Perturbation bool
}

// check refuses a fault that could not be told from a mistake.
func (f APIFault) check() error {
	switch {
	case f.Role == "":
		return errors.New("an API fault needs the role whose calls fail")
	case f.Calls&^(Reads|Writes) != 0 || f.Calls == 0:
		return fmt.Errorf("an API fault fails reads, writes or both, not %v", f.Calls)
	case f.Code == 409 && f.Calls != Writes:
		return errors.New("409 Conflict answers writes only")
	case f.RetryAfter != 0 && f.Code != 429 && f.Code != 504:
		return fmt.Errorf("%d carries no Retry-After; only 429 and 504 do", f.Code)
	case f.RetryAfter < 0 || f.RetryAfter%time.Second != 0:
		return fmt.Errorf("Retry-After %v is not a whole number of seconds", f.RetryAfter)
	}
	for _, gk := range f.Kinds {
		if gk.Kind == "" {
			return fmt.Errorf("kind %q of an API fault has no Kind", gk)
		}
	}
	if _, ok := reasons[f.Code]; !ok {
		return fmt.Errorf("%d is not an API error a fault injects; use 409, 429, 500, 503 or 504", f.Code)
	}
	return nil
}

// reasons are the status reasons of the codes a fault injects.
var reasons = map[int]string{409: "Conflict", 429: "TooManyRequests", 500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}

// String says what the fault does, for the timeline's Detail.
func (f APIFault) String() string {
	s := f.Calls.String()
	if f.Perturbation {
		s = timeline.PerturbationDetail + s
	}
	if len(f.Kinds) > 0 {
		kinds := make([]string, len(f.Kinds))
		for i, gk := range f.Kinds {
			kinds[i] = gk.String()
		}
		s += " on " + strings.Join(kinds, ", ")
	}
	s += fmt.Sprintf(" fail with %d %s", f.Code, reasons[f.Code])
	if f.RetryAfter > 0 {
		s += fmt.Sprintf(" (Retry-After %v)", f.RetryAfter)
	}
	return s
}

// err is the error a call on the named object of resource gets, as the
// API server would send it.
func (f APIFault) err(resource func() schema.GroupResource, name string) error {
	secs := int(f.RetryAfter / time.Second)
	switch f.Code {
	case 409:
		return apierrors.NewConflict(resource(), name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	case 429:
		return apierrors.NewTooManyRequests("the server has received too many requests and has asked us to try again later", secs)
	case 503:
		return apierrors.NewServiceUnavailable("the server is currently unable to handle the request")
	case 504:
		return apierrors.NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", secs)
	}
	return apierrors.NewInternalError(errors.New("an API fault of the run"))
}

// fails says whether the fault fails calls of these kinds on k's kind.
func (f APIFault) fails(calls Calls, k storeKey) bool {
	return f.Calls&calls != 0 && (len(f.Kinds) == 0 || slices.Contains(f.Kinds, k.gvk.GroupKind()))
}

func (f APIFault) reaches(st *actorState) bool {
	return st.Role == f.Role && (f.Actor == "" || f.Actor == st.Name)
}

// Fault is an API fault in force, from FailCalls until ClearFault.
type Fault struct {
	APIFault
	// told are the actors given a fault event (under the scheduler's mu).
	told map[string]string // actor -> role
}

// FailCalls makes calls fail as f says from now until ClearFault. A fault
// on one actor needs an actor of that name and role started before.
func (s *Scheduler) FailCalls(ctx context.Context, f APIFault) (*Fault, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if f.Actor != "" && s.started[f.Actor] != f.Role {
		s.mu.Unlock()
		return nil, fmt.Errorf("no actor %q of role %s has started; actors of the role so far: %s", f.Actor, f.Role, s.startedOf(f.Role))
	}
	h := &Fault{APIFault: f, told: map[string]string{}}
	s.faults = append(s.faults, h)
	var reached []string
	for name, st := range s.actors {
		if f.reaches(st) {
			reached = append(reached, name)
			h.told[name] = st.Role
		}
	}
	s.mu.Unlock()
	slices.Sort(reached)
	for _, name := range reached {
		s.faultEvent(ctx, name, f.Role, timeline.VerbFault, h)
	}
	return h, nil
}

// ClearFault ends a fault: the calls it failed succeed again.
func (s *Scheduler) ClearFault(ctx context.Context, h *Fault) error {
	s.mu.Lock()
	i := slices.Index(s.faults, h)
	if i < 0 {
		s.mu.Unlock()
		return errors.New("the API fault is not in force")
	}
	s.faults = slices.Delete(s.faults, i, i+1)
	told := h.told
	h.told = nil
	s.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(told)) {
		s.faultEvent(ctx, name, told[name], timeline.VerbClear, h)
	}
	return nil
}

// tellStarted gives an actor that starts during a fault or a view
// perturbation that reaches it its fault event, once per window (under
// mu; the events, their Details, go after its start).
func (s *Scheduler) tellStarted(st *actorState) []string {
	var out []string
	for _, h := range s.faults {
		if _, told := h.told[st.Name]; !told && h.reaches(st) {
			h.told[st.Name] = st.Role
			out = append(out, h.String())
		}
	}
	for _, p := range s.views {
		if _, told := p.told[st.Name]; !told && p.reaches(st.Role, st.Name) {
			p.told[st.Name] = st.Role
			out = append(out, p.String())
		}
	}
	return out
}

func (s *Scheduler) faultEvent(ctx context.Context, name, role, verb string, h *Fault) {
	s.processEvent(ctx, name, role, verb, h.String())
}

// startedOf lists the actors of a role started so far (under mu).
func (s *Scheduler) startedOf(role string) string {
	var names []string
	for name, r := range s.started {
		if r == role {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// injected is the error a fault gives the client's calls (reads or writes)
// of the object at k (a list: no name), or nil.
func (c *Client) injected(calls Calls, k storeKey) error {
	c.s.mu.Lock()
	var f *APIFault
	for _, h := range c.s.faults {
		if h.fails(calls, k) && h.Role == c.role && (h.Actor == "" || h.Actor == c.actor) {
			f = &h.APIFault
			break
		}
	}
	c.s.mu.Unlock()
	if f == nil {
		return nil
	}
	return f.err(func() schema.GroupResource { return c.resource(k) }, k.key.Name)
}
