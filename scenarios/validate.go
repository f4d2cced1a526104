package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

const defaultAnswer = time.Second

var (
	mechanisms = []string{"stale"}
	// Failing is the older name of Degraded; seed 001 accepts either.
	conditionTypes = []string{"Available", "Degraded", "Failing", "Progressing", "Upgradeable"}
	statuses       = []string{"True", "False", "Unknown"}
	dnsLabel       = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	// reason is the metav1.Condition reason pattern.
	reason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)
)

// Fleet returns the operators a run starts: fleets expanded to their members
// (<name>-01, <name>-02, ...) and AnswerDelay defaulted to 1s. Members get
// their own copies, so a simulation may change one without touching another.
func (s *Scenario) Fleet() []Operator {
	var fleet []Operator
	for _, o := range s.Operators {
		for _, name := range o.members() {
			m := o
			m.Name, m.Count = name, 0
			delay := Duration{defaultAnswer}
			if o.AnswerDelay != nil {
				delay = *o.AnswerDelay
			}
			m.AnswerDelay = &delay
			m.Conditions = slices.Clone(o.Conditions)
			fleet = append(fleet, m)
		}
	}
	return fleet
}

func (o Operator) members() []string {
	if o.Count == 0 {
		return []string{o.Name}
	}
	var names []string
	for i := 1; i <= o.Count; i++ {
		names = append(names, fmt.Sprintf("%s-%02d", o.Name, i))
	}
	return names
}

// checker collects every problem in a scenario, each pointing at the line of
// the field (or of its nearest parent when the field is missing).
type checker struct {
	s         *Scenario
	lines     map[string]int
	operators map[string]bool // fleet members
	objects   map[string]bool // what expect may check: operators and created ClusterOperators
	// members counts the operators once fleets expand. Over maxOperators,
	// they are not expanded and references to them are not checked.
	members int
	errs    []error
}

func (c *checker) errorf(path, format string, args ...any) {
	c.errs = append(c.errs, posError(c.s.Source, c.line(path), path, fmt.Sprintf(format, args...)))
}

func (c *checker) line(path string) int {
	for {
		if l, ok := c.lines[path]; ok || path == "" {
			return l
		}
		path = path[:max(strings.LastIndexAny(path, ".["), 0)]
	}
}

// validate checks s and resolves Step.Time. lines maps field paths to lines.
func validate(s *Scenario, lines map[string]int) error {
	c := &checker{s: s, lines: lines, operators: map[string]bool{}, objects: map[string]bool{}}
	c.label("name", s.Name, maxScenarioName)
	switch {
	case s.Mechanism == "":
		c.errorf("mechanism", "required; known mechanisms: %s", strings.Join(mechanisms, ", "))
	case !slices.Contains(mechanisms, s.Mechanism):
		c.errorf("mechanism", "%q is not known; known mechanisms: %s", s.Mechanism, strings.Join(mechanisms, ", "))
	}
	switch d := s.Duration.Duration; {
	case d == 0:
		c.errorf("duration", `required: how much virtual time the run covers, like "1h"`)
	case d < 0 || d > maxDuration:
		c.errorf("duration", "%v is out of range; use more than 0 and at most 30 days (720h)", d)
	}
	c.checkOperators()
	if c.steps() {
		c.times()
		for i, st := range s.Steps {
			c.step(fmt.Sprintf("steps[%d]", i), st)
		}
	}
	c.chaos()
	return c.result()
}

func (c *checker) label(path, v string, limit int) {
	switch {
	case v == "":
		c.errorf(path, "required; use lowercase letters, digits and '-'")
	case len(v) > limit || !dnsLabel.MatchString(v):
		c.errorf(path, "%q is not a DNS-1123 label; use at most %d lowercase letters, digits and '-', starting and ending with a letter or digit", v, limit)
	}
}

// checkOperators checks the operators and collects the names steps may refer to.
func (c *checker) checkOperators() {
	if !c.fleetSize() {
		return
	}
	declaredBy := map[string]int{}
	for i, o := range c.s.Operators {
		p := fmt.Sprintf("operators[%d]", i)
		if o.Count < 0 || o.Count > maxOperators {
			c.errorf(p+".count", "%d is out of range; use 0 for one operator or up to %d for a fleet", o.Count, maxOperators)
		} else {
			limit := maxOperatorName
			if o.Count > 0 {
				limit -= len(fmt.Sprintf("-%02d", o.Count)) // room for the member suffix
			}
			c.label(p+".name", o.Name, limit)
			for _, name := range o.members() {
				if j, dup := declaredBy[name]; dup {
					c.errorf(p+".name", "operator %q is also declared by operators[%d] (line %d); names must be unique once fleets expand to <name>-01, <name>-02, ...", name, j, c.line(fmt.Sprintf("operators[%d]", j)))
					break
				}
				declaredBy[name] = i
			}
		}
		if o.AnswerDelay != nil && o.AnswerDelay.Duration < 0 {
			c.errorf(p+".answerDelay", "%v is negative; use 0 or more", o.AnswerDelay.Duration)
		}
		switch n := len(o.Conditions); {
		case n == 0:
			c.errorf(p+".conditions", "required: an operator reports at least one condition")
		case n > len(conditionTypes):
			c.errorf(p+".conditions", "%d conditions; an operator reports at most %d, one of each type (%s)", n, len(conditionTypes), strings.Join(conditionTypes, ", "))
			continue
		}
		seen := map[string]int{}
		for j, cond := range o.Conditions {
			cp := fmt.Sprintf("%s.conditions[%d]", p, j)
			c.condition(cp, cond)
			if first, dup := seen[cond.Type]; dup && cond.Type != "" {
				c.errorf(cp+".type", "%s is given twice (first at line %d); an operator has one condition per type", cond.Type, c.line(fmt.Sprintf("%s.conditions[%d]", p, first)))
			}
			seen[cond.Type] = j
		}
	}
	for name := range declaredBy {
		c.operators[name], c.objects[name] = true, true
	}
	for _, st := range c.s.Steps {
		if name, ok := createdName(st.Create); ok && st.Create["kind"] == "ClusterOperator" {
			c.objects[name] = true
		}
	}
}

func (c *checker) condition(p string, cond Condition) {
	c.conditionType(p+".type", cond.Type)
	c.status(p+".status", cond.Status, true)
	switch {
	case cond.Reason == "":
		c.errorf(p+".reason", `required: a CamelCase word like "AsExpected"`)
	case len(cond.Reason) > maxReason:
		c.errorf(p+".reason", "is %d bytes long; a condition's reason is at most %d, so use a short CamelCase word", len(cond.Reason), maxReason)
	case !reason.MatchString(cond.Reason):
		c.errorf(p+".reason", "%q is not a valid reason; start with a letter and use letters, digits, '_', ',' and ':' only", cond.Reason)
	}
	if len(cond.Message) > maxMessage {
		c.errorf(p+".message", "is %d bytes long; a condition's message is at most %d, so shorten it", len(cond.Message), maxMessage)
	}
}

func (c *checker) conditionType(p, t string) {
	switch {
	case t == "":
		c.errorf(p, "required; use one of: %s", strings.Join(conditionTypes, ", "))
	case !slices.Contains(conditionTypes, t):
		c.errorf(p, "%q is not a ClusterOperator condition type; use one of: %s", t, strings.Join(conditionTypes, ", "))
	}
}

func (c *checker) status(p, status string, required bool) {
	switch {
	case status == "" && !required:
	case status == "":
		c.errorf(p, "required; use one of: %s", strings.Join(statuses, ", "))
	case !slices.Contains(statuses, status):
		c.errorf(p, "%q is not a condition status; use one of: %s", status, strings.Join(statuses, ", "))
	}
}

// times resolves Step.Time: at sets it, a step without at starts at the time
// of the step before, and advance adds to it. It stops at the first step past
// the end, as every later one would be reported too.
func (c *checker) times() {
	end, t := c.s.Duration.Duration, time.Duration(0)
	if end <= 0 || end > maxDuration {
		end = maxDuration // already reported; keep checking the steps' own order
	}
	for i := range c.s.Steps {
		st, p := &c.s.Steps[i], fmt.Sprintf("steps[%d]", i)
		if st.At != nil {
			switch at := st.At.Duration; {
			case at < 0:
				c.errorf(p+".at", "%v is negative; times count from the start of the run", at)
			case at < t:
				c.errorf(p+".at", "%v is before steps[%d] (line %d) at %v; steps must be in time order", at, i-1, c.s.Steps[i-1].Line, t)
			default:
				t = at
			}
		}
		var advance time.Duration
		if st.Advance != nil {
			if advance = st.Advance.Duration; advance < 0 {
				c.errorf(p+".advance", "%v is negative; time only moves forward", advance)
				advance = 0
			}
		}
		if t > end || advance > end-t {
			c.errorf(p, "happens after the scenario ends (duration %v); move it earlier or lengthen duration", end)
			return
		}
		t += advance
		st.Time = t
	}
}

func (c *checker) step(p string, st Step) {
	var actions []string
	for _, a := range []struct {
		name string
		set  bool
	}{
		{"create", st.Create != nil},
		{"killOperator", st.KillOperator != ""},
		{"restartOperator", st.RestartOperator != ""},
		{"hangOperator", st.HangOperator != ""},
		{"reconnectOperator", st.ReconnectOperator != ""},
		{"setCondition", st.SetCondition != nil},
		{"slowOperator", st.SlowOperator != nil},
		{"expect", st.Expect != nil},
	} {
		if a.set {
			actions = append(actions, a.name)
		}
	}
	switch {
	case len(actions) == 0 && st.Advance == nil:
		c.errorf(p, "no action; a step takes one of: create, killOperator, restartOperator, hangOperator, reconnectOperator, setCondition, slowOperator, expect (or only advance, to move the cursor)")
	case len(actions) > 1:
		c.errorf(p, "has %s; give each action its own step", strings.Join(actions, " and "))
	}
	for _, ref := range []struct{ field, name string }{
		{"killOperator", st.KillOperator}, {"restartOperator", st.RestartOperator},
		{"hangOperator", st.HangOperator}, {"reconnectOperator", st.ReconnectOperator},
	} {
		if ref.name != "" {
			c.operatorRef(p+"."+ref.field, ref.name)
		}
	}
	if sc := st.SetCondition; sc != nil {
		if sc.Operator == "" {
			c.errorf(p+".setCondition.operator", "required: the operator whose condition changes")
		} else {
			c.operatorRef(p+".setCondition.operator", sc.Operator)
		}
		c.condition(p+".setCondition", sc.Condition)
	}
	if so := st.SlowOperator; so != nil {
		if so.Operator == "" {
			c.errorf(p+".slowOperator.operator", "required: the operator that gets slow")
		} else {
			c.operatorRef(p+".slowOperator.operator", so.Operator)
		}
		if d := so.AnswerDelay.Duration; d < 0 {
			c.errorf(p+".slowOperator.answerDelay", "%v is negative; use 0 or more", d)
		}
	}
	if e := st.Expect; e != nil {
		c.expect(p+".expect", *e)
	}
	if st.Create != nil {
		for _, f := range []string{"apiVersion", "kind"} {
			if s, _ := st.Create[f].(string); s == "" {
				c.errorf(p+".create."+f, "required: a Kubernetes object has %s (text)", f)
			}
		}
		switch name, ok := createdName(st.Create); {
		case !ok:
			c.errorf(p+".create.metadata.name", "required: give the object a name (text)")
		case len(name) > maxCreateName:
			c.errorf(p+".create.metadata.name", "is %d bytes long; use at most %d, which leaves room for the run's prefix within Kubernetes' %d", len(name), maxCreateName, maxCreateName+runPrefixRoom)
		}
	}
}

func createdName(obj map[string]any) (string, bool) {
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return name, name != ""
}

func (c *checker) operatorRef(p, name string) {
	if c.members <= maxOperators && !c.operators[name] {
		c.errorf(p, "no operator %q; declared: %s", name, c.declared())
	}
}

// declared lists the operator names briefly, a fleet as its first and last member.
func (c *checker) declared() string {
	var names []string
	for _, o := range c.s.Operators {
		switch m := o.members(); len(m) {
		case 0:
		case 1:
			names = append(names, m[0])
		default:
			names = append(names, m[0]+".."+m[len(m)-1])
		}
	}
	if len(names) == 0 {
		return "none (add some under operators)"
	}
	return strings.Join(names, ", ")
}

func (c *checker) expect(p string, e Expect) {
	switch {
	case e.Object == "":
		c.errorf(p+".object", "required: the ClusterOperator to check")
	case c.members <= maxOperators && !c.objects[e.Object]:
		c.errorf(p+".object", "no ClusterOperator %q; declared operators: %s (or create one with a create step)", e.Object, c.declared())
	}
	c.conditionType(p+".condition", e.Condition)
	c.status(p+".status", e.Status, false)
	if e.Status == "" && e.Reason == "" && e.Message == "" && e.MessagePrefix == "" {
		c.errorf(p, "checks nothing; give at least one of status, reason, message, messagePrefix")
	}
}

func (c *checker) chaos() {
	ch := c.s.Chaos
	if ch == nil {
		return
	}
	switch mu := ch.MeanUptime.Duration; {
	case mu <= 0:
		c.errorf("chaos.meanUptime", `must be more than 0, like "8h"`)
	case mu < minMeanUptime:
		c.errorf("chaos.meanUptime", "%v is too short; use at least %v", mu, minMeanUptime)
	default:
		c.faults(mu)
	}
	if ch.Downtime.Min.Duration <= 0 {
		c.errorf("chaos.downtime.min", `must be more than 0, like "5m"`)
	}
	switch hi := ch.Downtime.Max.Duration; {
	case hi < ch.Downtime.Min.Duration:
		c.errorf("chaos.downtime.max", "%v is less than min %v; max must be at least min", hi, ch.Downtime.Min.Duration)
	case hi > maxDuration:
		c.errorf("chaos.downtime.max", "%v is longer than any run (30 days); use less", hi)
	}
	if !(ch.Hang >= 0 && ch.Hang <= 1) {
		c.errorf("chaos.hang", "%v is not a fraction; use 0 (faults only kill) to 1 (faults only hang)", ch.Hang)
	}
}
