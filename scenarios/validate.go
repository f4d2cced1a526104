package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

var (
	statuses = []string{"True", "False", "Unknown"}
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// reason is the metav1.Condition reason pattern.
	reason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
)

// Check collects every problem in a scenario, each pointing at the line of
// the field (or of its nearest parent when the field is missing). A Kind's
// Validate reports through it.
type Check struct {
	s       *Scenario
	kind    *Kind
	lines   map[string]int
	actions map[string][]string // step path -> the kind's actions it gives
	errs    []error
}

// Errorf reports a problem with the field at path ("operators[0].name").
func (c *Check) Errorf(path, format string, args ...any) {
	c.errs = append(c.errs, posError(c.s.Source, c.Line(path), path, fmt.Sprintf(format, args...)))
}

// Line is the line of the field at path, or of its nearest parent given.
func (c *Check) Line(path string) int {
	for {
		if l, ok := c.lines[path]; ok || path == "" {
			return l
		}
		path = path[:max(strings.LastIndexAny(path, ".["), 0)]
	}
}

// Label checks a DNS-1123 label of at most limit bytes.
func (c *Check) Label(path, v string, limit int) {
	switch {
	case v == "":
		c.Errorf(path, "required; use lowercase letters, digits and '-'")
	case len(v) > limit || !dnsLabel.MatchString(v):
		c.Errorf(path, "%q is not a DNS-1123 label; use at most %d lowercase letters, digits and '-', starting and ending with a letter or digit", v, limit)
	}
}

// Condition checks a condition a world reports: its type among the kind's,
// its status, its reason and the sizes of reason and message.
func (c *Check) Condition(p string, cond Condition) {
	c.ConditionType(p+".type", cond.Type)
	c.Status(p+".status", cond.Status, true)
	switch {
	case cond.Reason == "":
		c.Errorf(p+".reason", `required: a CamelCase word like "AsExpected"`)
	case len(cond.Reason) > MaxReason:
		c.Errorf(p+".reason", "is %d bytes long; a condition's reason is at most %d, so use a short CamelCase word", len(cond.Reason), MaxReason)
	case !reason.MatchString(cond.Reason):
		c.Errorf(p+".reason", "%q is not a valid reason; start with a letter and use letters, digits, '_', ',' and ':' only", cond.Reason)
	}
	if len(cond.Message) > MaxMessage {
		c.Errorf(p+".message", "is %d bytes long; a condition's message is at most %d, so shorten it", len(cond.Message), MaxMessage)
	}
}

// ConditionType checks a condition type against the kind's list.
func (c *Check) ConditionType(p, t string) {
	types := c.kind.Conditions
	switch {
	case t == "":
		c.Errorf(p, "required; use one of: %s", strings.Join(types, ", "))
	case len(types) > 0 && !slices.Contains(types, t):
		c.Errorf(p, "%q is not a %s condition type; use one of: %s", t, c.kind.Expects.Kind, strings.Join(types, ", "))
	}
}

// Status checks a condition status.
func (c *Check) Status(p, status string, required bool) {
	switch {
	case status == "" && !required:
	case status == "":
		c.Errorf(p, "required; use one of: %s", strings.Join(statuses, ", "))
	case !slices.Contains(statuses, status):
		c.Errorf(p, "%q is not a condition status; use one of: %s", status, strings.Join(statuses, ", "))
	}
}

// validate checks s and resolves Step.Time. lines maps field paths to lines.
func validate(s *Scenario, kind *Kind, lines map[string]int, actions map[string][]string) error {
	c := &Check{s: s, kind: kind, lines: lines, actions: actions}
	c.Label("name", s.Name, MaxNameLength)
	switch d := s.Duration.Duration; {
	case d == 0:
		c.Errorf("duration", `required: how much virtual time the run covers, like "1h"`)
	case d < 0 || d > MaxDuration:
		c.Errorf("duration", "%v is out of range; use more than 0 and at most 30 days (720h)", d)
	}
	if c.steps() {
		c.times()
		for i, st := range s.Steps {
			c.step(fmt.Sprintf("steps[%d]", i), st)
		}
		c.faultWindows()
	}
	if kind.Validate != nil {
		kind.Validate(c, s)
	}
	return c.result()
}

// times resolves Step.Time: at sets it, a step without at starts at the time
// of the step before, and advance adds to it. It stops at the first step past
// the end, as every later one would be reported too.
func (c *Check) times() {
	end, t := c.s.Duration.Duration, time.Duration(0)
	if end <= 0 || end > MaxDuration {
		end = MaxDuration // already reported; keep checking the steps' own order
	}
	for i := range c.s.Steps {
		st, p := &c.s.Steps[i], fmt.Sprintf("steps[%d]", i)
		if st.At != nil {
			switch at := st.At.Duration; {
			case at < 0:
				c.Errorf(p+".at", "%v is negative; times count from the start of the run", at)
			case at < t:
				c.Errorf(p+".at", "%v is before steps[%d] (line %d) at %v; steps must be in time order", at, i-1, c.s.Steps[i-1].Line, t)
			default:
				t = at
			}
		}
		var advance time.Duration
		if st.Advance != nil {
			if advance = st.Advance.Duration; advance < 0 {
				c.Errorf(p+".advance", "%v is negative; time only moves forward", advance)
				advance = 0
			}
		}
		if t > end || advance > end-t {
			c.Errorf(p, "happens after the scenario ends (duration %v); move it earlier or lengthen duration", end)
			return
		}
		t += advance
		st.Time = t
	}
}

func (c *Check) step(p string, st Step) {
	var given []string
	if st.Create != nil {
		given = append(given, "create")
	}
	given = append(given, c.actions[p]...)
	if st.Expect != nil {
		given = append(given, "expect")
	}
	if st.APIErrors != nil {
		given = append(given, "apiErrors")
		c.apiErrors(p+".apiErrors", st)
	}
	if st.Perturb != nil {
		given = append(given, "perturb")
		c.perturb(p+".perturb", st)
	}
	switch {
	case len(given) == 0 && st.Advance == nil:
		c.Errorf(p, "no action; a step takes one of: %s (or only advance, to move the cursor)",
			strings.Join(append([]string{"create"}, append(c.kind.actionNames(), "expect", "apiErrors", "perturb")...), ", "))
	case len(given) > 1:
		c.Errorf(p, "has %s; give each action its own step", strings.Join(given, " and "))
	}
	if e := st.Expect; e != nil {
		c.expect(p+".expect", *e)
	}
	if st.Create != nil {
		for _, f := range []string{"apiVersion", "kind"} {
			if s, _ := st.Create[f].(string); s == "" {
				c.Errorf(p+".create."+f, "required: a Kubernetes object has %s (text)", f)
			}
		}
		switch name, ok := CreatedName(st.Create); {
		case !ok:
			c.Errorf(p+".create.metadata.name", "required: give the object a name (text)")
		case len(name) > maxCreateName:
			c.Errorf(p+".create.metadata.name", "is %d bytes long; use at most %d, which leaves room for the run's prefix within Kubernetes' %d", len(name), maxCreateName, maxCreateName+RunPrefixRoom)
		}
	}
}

// CreatedName is the metadata.name of a create step's object.
func CreatedName(obj map[string]any) (string, bool) {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name, name != ""
}

// expect checks an expect step's own fields; which objects exist is the
// kind's to check (Validate).
func (c *Check) expect(p string, e Expect) {
	if e.Object == "" {
		c.Errorf(p+".object", "required: the name of the %s to check", c.kind.Expects.Kind)
	}
	if e.Kind == "" || e.Kind == c.kind.Expects.Kind {
		c.ConditionType(p+".condition", e.Condition)
	} else if e.Condition == "" {
		c.Errorf(p+".condition", "required: the condition type to check")
	}
	if (e.Kind == "") != (e.APIVersion == "") {
		c.Errorf(p, "give kind and apiVersion together, or neither to check a %s", c.kind.Expects.Kind)
	}
	c.Status(p+".status", e.Status, false)
	if e.Status == "" && e.Reason == "" && e.Message == "" && e.MessagePrefix == "" {
		c.Errorf(p, "checks nothing; give at least one of status, reason, message, messagePrefix")
	}
}

// Chaos checks random faults drawn for processes over the scenario's
// duration (path is the field holding them).
func (c *Check) Chaos(path string, ch *Chaos, processes int) {
	if ch == nil {
		return
	}
	if ch.MeanUptime.Duration <= 0 {
		c.Errorf(path+".meanUptime", `must be more than 0, like "8h"`)
	}
	c.Faults(path+".meanUptime", ch.MeanUptime.Duration, processes, "processes")
	if ch.Downtime.Min.Duration <= 0 {
		c.Errorf(path+".downtime.min", `must be more than 0, like "5m"`)
	}
	switch hi := ch.Downtime.Max.Duration; {
	case hi < ch.Downtime.Min.Duration:
		c.Errorf(path+".downtime.max", "%v is less than min %v; max must be at least min", hi, ch.Downtime.Min.Duration)
	case hi > MaxDuration:
		c.Errorf(path+".downtime.max", "%v is longer than any run (30 days); use less", hi)
	}
	if !(ch.Hang >= 0 && ch.Hang <= 1) {
		c.Errorf(path+".hang", "%v is not a fraction; use 0 (faults only kill) to 1 (faults only hang)", ch.Hang)
	}
}
