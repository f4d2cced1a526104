package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// APIErrors makes the API calls of a role's actors, or of one of them,
// fail with one API error for a while: the API server answers them with
// the error instead of doing them (sim.APIFault). It is a step field of
// every mechanism; the roles it may name are its Kind's Roles.
type APIErrors struct {
	// Role is whose calls fail: every actor of it, or Actor alone.
	Role string `yaml:"role"`
	// Actor, if set, is the one actor of Role whose calls fail, as the
	// timeline names it (operator/etcd).
	Actor string `yaml:"actor,omitempty"`
	// On is which calls fail: reads (get, list), writes (create, update,
	// patch, delete, status) or all.
	On string `yaml:"on"`
	// Kinds, if set, are the only kinds whose calls fail, each a Kind
	// (core: Pod) or Kind.group (Deployment.apps): the role's other calls
	// succeed, so that an operator refused on its operands can still write
	// its own status. None: calls on every kind fail.
	Kinds []string `yaml:"kinds,omitempty"`
	// Code is the error's HTTP status (APICodes).
	Code int `yaml:"code"`
	// For is how long the calls fail, from the step's time.
	For Duration `yaml:"for"`
	// RetryAfter is what a 429 or 504 asks the client to wait (whole
	// seconds; default none).
	RetryAfter *Duration `yaml:"retryAfter,omitempty"`
}

// Which calls an apiErrors step fails (APIErrors.On).
const (
	OnReads  = "reads"
	OnWrites = "writes"
	OnAll    = "all"
)

// APICodes are the errors an apiErrors step may inject, by HTTP status,
// with the status reason apimachinery gives them.
var APICodes = map[int]string{
	409: "Conflict",
	429: "TooManyRequests",
	500: "InternalError",
	503: "ServiceUnavailable",
	504: "Timeout",
}

// codes lists APICodes for messages: "409 (Conflict), 429 (...)...".
func codes() string {
	var keys []int
	for k := range APICodes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%d (%s)", k, APICodes[k])
	}
	return strings.Join(out, ", ")
}

// apiErrors checks one apiErrors step at p (its time resolved).
func (c *Check) apiErrors(p string, st Step) {
	x := st.APIErrors
	c.role(p, x.Role, "apiErrors")
	if len(x.Actor) > maxActorName {
		c.Errorf(p+".actor", "is %d bytes long; an actor's name is at most %d (leave actor out to fail every actor of the role)", len(x.Actor), maxActorName)
	}
	c.faultKinds(p+".kinds", x.Kinds)
	c.calls(p, x.On, x.Code)
	switch d, end := x.For.Duration, c.s.Duration.Duration; {
	case d <= 0:
		c.Errorf(p+".for", `required: how long the calls fail, more than 0, like "5m"`)
	case end > 0 && end <= MaxDuration && d > end-st.Time:
		c.Errorf(p+".for", "%v from %v ends after the scenario (duration %v); shorten it or lengthen duration, so that the run sees the fault clear", d, st.Time, end)
	}
	if r := x.RetryAfter; r != nil {
		switch d := r.Duration; {
		case x.Code != 429 && x.Code != 504:
			c.Errorf(p+".retryAfter", "only a 429 or a 504 carries Retry-After; leave it out")
		case d < time.Second || d > maxRetryAfter || d%time.Second != 0:
			c.Errorf(p+".retryAfter", "%v is not a Retry-After; use whole seconds from 1s to %v", d, maxRetryAfter)
		}
	}
}

// calls checks the calls an API fault fails (on) and its error (code), at
// p (an apiErrors step, or a perturb step's).
func (c *Check) calls(p, on string, code int) {
	switch on {
	case OnReads, OnWrites, OnAll:
	case "":
		c.Errorf(p+".on", "required: which calls fail: reads, writes or all")
	default:
		c.Errorf(p+".on", "%q is not a kind of call; use reads, writes or all", on)
	}
	switch _, known := APICodes[code]; {
	case code == 0:
		c.Errorf(p+".code", "required: the HTTP status of the error; one of: %s", codes())
	case !known:
		c.Errorf(p+".code", "%d is not an error a fault injects; use one of: %s", code, codes())
	case code == 409 && on != OnWrites && on != "":
		c.Errorf(p+".code", "409 (Conflict) answers writes only; give on: writes")
	}
}

// faultKind is a Kind or Kind.group as kubectl names one: the Kind an
// identifier starting with a capital, the group a DNS-1123 subdomain.
var faultKind = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// faultKinds checks an apiErrors step's kinds at p.
func (c *Check) faultKinds(p string, kinds []string) {
	if len(kinds) > maxFaultKinds {
		c.Errorf(p, "names %d kinds; at most %d (leave kinds out to fail calls on every kind)", len(kinds), maxFaultKinds)
		return
	}
	for i, k := range kinds {
		switch {
		case len(k) > maxKindName || !faultKind.MatchString(k):
			c.Errorf(fmt.Sprintf("%s[%d]", p, i), "%q is not a kind; give Kind (core: Pod) or Kind.group (Deployment.apps), at most %d bytes", k, maxKindName)
		case slices.Index(kinds, k) < i:
			c.Errorf(fmt.Sprintf("%s[%d]", p, i), "%q is named twice", k)
		}
	}
}

// faultWindows refuses two windows on one role that overlap (apiErrors,
// and perturb steps with a window): an actor is under one fault at a
// time, so that its fault and clear events pair up on the timeline.
func (c *Check) faultWindows() {
	type window struct {
		step     int
		from, to time.Duration
	}
	last := map[string]window{}
	for i, st := range c.s.Steps {
		var role, field string
		var d time.Duration
		switch {
		case st.APIErrors != nil:
			role, field, d = st.APIErrors.Role, "apiErrors", st.APIErrors.For.Duration
		case st.Perturb != nil && st.Perturb.Kind() != "":
			role, field, d = st.Perturb.Role, "perturb", st.Perturb.For()
		}
		if d <= 0 {
			continue
		}
		w := window{i, st.Time, st.Time + d}
		if prev, ok := last[role]; ok && w.from < prev.to {
			c.Errorf(fmt.Sprintf("steps[%d].%s", i, field), "starts at %v, while the window of steps[%d] (line %d) on role %s lasts until %v; one fault or perturbation per role at a time",
				w.from, prev.step, c.s.Steps[prev.step].Line, role, prev.to)
			continue
		}
		last[role] = w
	}
}
