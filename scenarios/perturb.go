package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Perturb changes what a role's actors see for a while, or crashes one of
// them between two writes (sim.View, sim.Crash): what a real cluster does
// to an operator (a pod restarted in the middle of its work, a watch that
// broke and relisted, a cache behind the API server), which a faithful
// operator survives. It is a step field of every mechanism, on the roles
// its Kind names (Kind.Roles); exactly one of Crash, LostEvents,
// LateEvents, StaleReads and APIErrors is set. A run of a scenario with
// perturb steps is judged by its rules and by convergence: once the
// perturbations are over, the role's objects end with the conditions an
// unperturbed run of the scenario ends with (judge.Convergence). In
// process mode only crashes (each executable after its own n-th write)
// and lostEvents are made, through the executable's proxy.
type Perturb struct {
	// Role is whose view is perturbed.
	Role string `yaml:"role"`
	// Actor, if set, is the one actor of Role perturbed (as the timeline
	// names it).
	Actor string `yaml:"actor,omitempty"`
	// Crash kills the writer of the role's n-th write from the step's time
	// right after it, and restarts it with no memory.
	Crash *Crash `yaml:"crash,omitempty"`
	// LostEvents loses the role's notifications for a while; at the end
	// it is told once of each object that changed (a relist).
	LostEvents *Window `yaml:"lostEvents,omitempty"`
	// LateEvents holds each notification back by Delay for a while.
	LateEvents *Window `yaml:"lateEvents,omitempty"`
	// StaleReads answers the role's reads as of Lag ago, and holds its
	// notifications back as long, for a while.
	StaleReads *Window `yaml:"staleReads,omitempty"`
	// APIErrors fails the role's calls for a while, as an apiErrors step
	// does; unlike one, it is a perturbation: the scenario's expectations
	// are not owed after it, and convergence judges the run.
	APIErrors *Errors `yaml:"apiErrors,omitempty"`
}

// Errors is a perturb step's API errors.
type Errors struct {
	// On is which calls fail: reads, writes or all.
	On string `yaml:"on"`
	// Code is the error's HTTP status (APICodes).
	Code int `yaml:"code"`
	// For is how long, from the step's time.
	For Duration `yaml:"for"`
}

// Crash is a perturb step's crash.
type Crash struct {
	// AfterWrites is the write, counted from 1 from the step's time, after
	// which its writer dies.
	AfterWrites int `yaml:"afterWrites"`
	// RestartAfter is how long it stays dead (default: restarted at once).
	RestartAfter *Duration `yaml:"restartAfter,omitempty"`
}

// Window is how long a view is perturbed, and by how much.
type Window struct {
	// For is how long, from the step's time.
	For Duration `yaml:"for"`
	// Delay is how late each notification comes (lateEvents only).
	Delay *Duration `yaml:"delay,omitempty"`
	// Lag is how old what reads answer is (staleReads only).
	Lag *Duration `yaml:"lag,omitempty"`
}

// Kinds of perturbation, as the format and opcert perturb name them.
const (
	PerturbCrash      = "crash"
	PerturbLostEvents = "lostEvents"
	PerturbLateEvents = "lateEvents"
	PerturbStaleReads = "staleReads"
	PerturbAPIErrors  = "apiErrors"
)

// Kind is which perturbation it is ("" if none or several are set).
func (p *Perturb) Kind() string {
	var kinds []string
	if p.Crash != nil {
		kinds = append(kinds, PerturbCrash)
	}
	if p.LostEvents != nil {
		kinds = append(kinds, PerturbLostEvents)
	}
	if p.LateEvents != nil {
		kinds = append(kinds, PerturbLateEvents)
	}
	if p.StaleReads != nil {
		kinds = append(kinds, PerturbStaleReads)
	}
	if p.APIErrors != nil {
		kinds = append(kinds, PerturbAPIErrors)
	}
	if len(kinds) != 1 {
		return ""
	}
	return kinds[0]
}

// Window is the perturbation's window of what the role sees, nil for a
// crash or API errors.
func (p *Perturb) Window() *Window {
	switch {
	case p.LostEvents != nil:
		return p.LostEvents
	case p.LateEvents != nil:
		return p.LateEvents
	}
	return p.StaleReads
}

// For is how long the perturbation lasts from its step: its window's or
// its API errors', 0 for a crash (when it fires is the run's to tell).
func (p *Perturb) For() time.Duration {
	switch w := p.Window(); {
	case p.APIErrors != nil:
		return p.APIErrors.For.Duration
	case w != nil:
		return w.For.Duration
	}
	return 0
}

// End is when a perturbation that starts at at is over (For).
func (p *Perturb) End(at time.Duration) time.Duration { return at + p.For() }

// String says what it does, briefly, for reports and file names.
func (p *Perturb) String() string {
	who := p.Role
	if p.Actor != "" {
		who = p.Actor
	}
	switch w := p.Window(); {
	case p.Crash != nil:
		s := fmt.Sprintf("crash %s after write %d", who, p.Crash.AfterWrites)
		if r := p.Crash.RestartAfter; r != nil {
			s += fmt.Sprintf(", restarted %v later", r.Duration)
		}
		return s
	case p.LateEvents != nil && w.Delay != nil:
		return fmt.Sprintf("%s: notifications %v late for %v", who, w.Delay.Duration, w.For.Duration)
	case p.StaleReads != nil && w.Lag != nil:
		return fmt.Sprintf("%s: reads %v stale for %v", who, w.Lag.Duration, w.For.Duration)
	case w != nil:
		return fmt.Sprintf("%s: notifications lost for %v", who, w.For.Duration)
	case p.APIErrors != nil:
		return fmt.Sprintf("%s: %s fail with %d for %v", who, p.APIErrors.On, p.APIErrors.Code, p.APIErrors.For.Duration)
	}
	return who + ": no perturbation"
}

// Perturbed tells whether the scenario has perturb steps.
func (s *Scenario) Perturbed() bool {
	return slices.ContainsFunc(s.Steps, func(st Step) bool { return st.Perturb != nil })
}

// Unperturbed is the scenario without its perturb steps: what a perturbed
// run's convergence is judged against.
func (s *Scenario) Unperturbed() *Scenario {
	u := *s
	u.Steps = slices.DeleteFunc(slices.Clone(s.Steps), func(st Step) bool { return st.Perturb != nil })
	return &u
}

// PerturbEnd is when the last perturbation of the scenario is over, and
// whether it has any.
func (s *Scenario) PerturbEnd() (time.Duration, bool) {
	var end time.Duration
	found := false
	for _, st := range s.Steps {
		if st.Perturb != nil {
			end, found = max(end, st.Perturb.End(st.Time)), true
		}
	}
	return end, found
}

// perturb checks one perturb step at p (its time resolved).
func (c *Check) perturb(p string, st Step) {
	x := st.Perturb
	c.role(p, x.Role, "perturb")
	if len(x.Actor) > maxActorName {
		c.Errorf(p+".actor", "is %d bytes long; an actor's name is at most %d (leave actor out to perturb every actor of the role)", len(x.Actor), maxActorName)
	}
	if x.Kind() == "" {
		c.Errorf(p, "give exactly one of crash, lostEvents, lateEvents, staleReads, apiErrors")
		return
	}
	if cr := x.Crash; cr != nil {
		if cr.AfterWrites < 1 || cr.AfterWrites > maxCrashWrite {
			c.Errorf(p+".crash.afterWrites", "%d is not a write; count the role's writes from 1 (at most %d) from the step's time", cr.AfterWrites, maxCrashWrite)
		}
		if r := cr.RestartAfter; r != nil && (r.Duration < 0 || r.Duration > c.s.Duration.Duration) {
			c.Errorf(p+".crash.restartAfter", "%v is out of range; give 0 or more, within the scenario", r.Duration)
		}
		return
	}
	wp := p + "." + x.Kind()
	switch d, end := x.For(), c.s.Duration.Duration; {
	case d <= 0:
		c.Errorf(wp+".for", `required: how long it lasts, more than 0, like "2m"`)
	case end > 0 && end <= MaxDuration && d > end-st.Time:
		c.Errorf(wp+".for", "%v from %v ends after the scenario (duration %v); shorten it or lengthen duration, so that the run sees it end", d, st.Time, end)
	}
	if e := x.APIErrors; e != nil {
		c.calls(wp, e.On, e.Code)
		return
	}
	w := x.Window()
	c.by(wp+".delay", w.Delay, x.LateEvents != nil, "how late each notification comes")
	c.by(wp+".lag", w.Lag, x.StaleReads != nil, "how old what reads answer is")
}

// by checks a window's delay or lag at p: wanted for its own kind, refused
// for the others.
func (c *Check) by(p string, d *Duration, wanted bool, what string) {
	switch {
	case d == nil && wanted:
		c.Errorf(p, `required: %s, more than 0, like "30s"`, what)
	case d != nil && !wanted:
		c.Errorf(p, "is not a field of this perturbation; leave it out")
	case d != nil && (d.Duration <= 0 || d.Duration > maxPerturbBy):
		c.Errorf(p, "%v is out of range; give more than 0, at most %v", d.Duration, maxPerturbBy)
	}
}

// role checks the role a step of field names (apiErrors, perturb).
func (c *Check) role(p, role, field string) {
	roles := c.kind.Roles
	switch {
	case len(roles) == 0:
		c.Errorf(p, "mechanism %s names no roles whose API calls opcert plays; it takes no %s", c.kind.Mechanism, field)
	case role == "":
		c.Errorf(p+".role", "required: the role; one of: %s", strings.Join(roles, ", "))
	case !slices.Contains(roles, role):
		c.Errorf(p+".role", "%q is not a role of %s whose calls go to the API server; use one of: %s", role, c.kind.Mechanism, strings.Join(roles, ", "))
	}
}
