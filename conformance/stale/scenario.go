package stale

import (
	"embed"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/scenarios"
)

// Seed 000's part of the scenario format (scenarios/README.md): simulated
// operators, each owning the ClusterOperator of its name, random faults,
// and the actions on operator processes.

// World is what a stale scenario declares beside the shared fields.
type World struct {
	// Operators are the simulated operators, each owning the
	// ClusterOperator of its name.
	Operators []Operator `yaml:"operators,omitempty"`
	// Chaos, if set, kills and hangs every operator at random.
	Chaos *scenarios.Chaos `yaml:"chaos,omitempty"`
}

// Operator is a simulated operator process that owns one ClusterOperator of
// the same name and keeps its conditions there.
type Operator struct {
	// Name is the operator's and its ClusterOperator's, a DNS-1123 label,
	// unique.
	Name string `yaml:"name"`
	// Count > 0 declares a fleet: Count operators named <name>-01, <name>-02...
	Count int `yaml:"count,omitempty"`
	// AnswerDelay is how long the operator takes to put its conditions back
	// after someone else changed them (a stale challenge). Default 1s.
	AnswerDelay *scenarios.Duration `yaml:"answerDelay,omitempty"`
	// Conditions are what it reports at the start, one per type, at least
	// one.
	Conditions []scenarios.Condition `yaml:"conditions"`
	// Stopped operators are not started at time zero (restartOperator starts them).
	Stopped bool `yaml:"stopped,omitempty"`
}

// SetCondition changes what an operator reports: its operand moved.
type SetCondition struct {
	// Operator is the operator, by name (a fleet's member in full).
	Operator            string `yaml:"operator"`
	scenarios.Condition `yaml:",inline"`
}

// SlowOperator changes how long an operator takes to answer from now on,
// across restarts (it got slow: a long resync, a starved process).
type SlowOperator struct {
	// Operator is the operator, by name (a fleet's member in full).
	Operator string `yaml:"operator"`
	// AnswerDelay is how long it takes to answer from now on.
	AnswerDelay scenarios.Duration `yaml:"answerDelay"`
}

// Actions of stale scenarios. An action on an operator names it (a
// fleet's member in full: node-07) and does nothing where the operator is
// already as asked (killing one that is not running, hanging one that
// hangs).
const (
	// The named operator's process dies; its conditions stay as written.
	actKill = "killOperator"
	// The named operator starts and writes its conditions at once.
	actRestart = "restartOperator"
	// The named operator lives on, cut off from the API server.
	actHang = "hangOperator"
	// A hung operator sees the API server again.
	actReconnect = "reconnectOperator"
	// The operand moved: the operator reports this condition.
	actSet = "setCondition"
	// From now on, and across restarts, the operator takes this long to
	// answer.
	actSlow = "slowOperator"
	// true: the detector's process dies (if running); nothing is checked
	// for staleness until it is restarted.
	actKillDetector = "killDetector"
	// true: a new detector process starts (a running one is killed first)
	// with no memory: it lists every ClusterOperator and dates each by its
	// transition times.
	actRestartDetector = "restartDetector"
)

// clusterOperatorConditions are the ClusterOperator conditions (000 §Proposal; Failing
// is the older name of Degraded, which seed 001 accepts).
var clusterOperatorConditions = []string{"Available", "Degraded", "Failing", "Progressing", "Upgradeable"}

//go:embed scenarios/*.yaml
var builtinFiles embed.FS

// scenarioKind is the mechanism's part of the scenario format, registered
// with its plug-in (conformance.Plugin.Scenarios).
var scenarioKind = scenarios.Kind{
	World:      reflect.TypeFor[World](),
	Actions:    stepActions, // mechanism.go: with their value types and handlers
	Expects:    ClusterOperatorGVK,
	Conditions: clusterOperatorConditions,
	Roles:      []string{RoleOperator, RoleDetector},
	Validate:   validate,
	Builtins:   scenarios.Embedded(builtinFiles, "scenarios"),
	Draw:       draw,
}

const defaultAnswer = time.Second

// maxOperatorName bounds an operator's name once fleets expand: the name of
// its ClusterOperator, a DNS-1123 label (63) after the run prefix.
const maxOperatorName = 63 - scenarios.RunPrefixRoom

// scenarioWorld is a scenario's World (Parse always sets it for a stale scenario).
func scenarioWorld(sc *scenarios.Scenario) *World { return sc.World.(*World) }

// Fleet returns the operators a run starts: fleets expanded to their members
// (<name>-01, <name>-02, ...) and AnswerDelay defaulted to 1s. Members get
// their own copies, so a simulation may change one without touching another.
func (w *World) Fleet() []Operator {
	var fleet []Operator
	for _, o := range w.Operators {
		for _, name := range o.members() {
			m := o
			m.Name, m.Count = name, 0
			delay := scenarios.Duration{Duration: defaultAnswer}
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

// checker holds what the checks of one stale scenario share.
type checker struct {
	*scenarios.Check
	w         *World
	operators map[string]bool // fleet members
	objects   map[string]bool // what expect may check: operators and created ClusterOperators
	// members counts the operators once fleets expand. Over the limit, they
	// are not expanded and references to them are not checked.
	members int
}

func validate(check *scenarios.Check, sc *scenarios.Scenario) {
	c := &checker{Check: check, w: scenarioWorld(sc), operators: map[string]bool{}, objects: map[string]bool{}}
	c.checkOperators(sc)
	for i, st := range sc.Steps {
		c.step(fmt.Sprintf("steps[%d]", i), st)
	}
	c.Chaos("chaos", c.w.Chaos, c.members)
}

// fleetSize counts the operators once fleets expand, without expanding them:
// a small file can declare many large fleets. A count out of range counts
// as one; checkOperators reports it.
func (c *checker) fleetSize() bool {
	for _, o := range c.w.Operators {
		if o.Count > 0 && o.Count <= scenarios.MaxProcesses {
			c.members += o.Count
		} else {
			c.members++
		}
	}
	if c.members > scenarios.MaxProcesses {
		c.Errorf("operators", "%d operators once fleets expand; a run has at most %d, so use fewer or smaller fleets", c.members, scenarios.MaxProcesses)
		return false
	}
	return true
}

// checkOperators checks the operators and collects the names steps may refer to.
func (c *checker) checkOperators(sc *scenarios.Scenario) {
	if !c.fleetSize() {
		return
	}
	declaredBy := map[string]int{}
	for i, o := range c.w.Operators {
		p := fmt.Sprintf("operators[%d]", i)
		if o.Count < 0 || o.Count > scenarios.MaxProcesses {
			c.Errorf(p+".count", "%d is out of range; use 0 for one operator or up to %d for a fleet", o.Count, scenarios.MaxProcesses)
		} else {
			limit := maxOperatorName
			if o.Count > 0 {
				limit -= len(fmt.Sprintf("-%02d", o.Count)) // room for the member suffix
			}
			c.Label(p+".name", o.Name, limit)
			for _, name := range o.members() {
				if j, dup := declaredBy[name]; dup {
					c.Errorf(p+".name", "operator %q is also declared by operators[%d] (line %d); names must be unique once fleets expand to <name>-01, <name>-02, ...", name, j, c.Line(fmt.Sprintf("operators[%d]", j)))
					break
				}
				declaredBy[name] = i
			}
		}
		if o.AnswerDelay != nil && o.AnswerDelay.Duration < 0 {
			c.Errorf(p+".answerDelay", "%v is negative; use 0 or more", o.AnswerDelay.Duration)
		}
		switch n := len(o.Conditions); {
		case n == 0:
			c.Errorf(p+".conditions", "required: an operator reports at least one condition")
		case n > len(clusterOperatorConditions):
			c.Errorf(p+".conditions", "%d conditions; an operator reports at most %d, one of each type (%s)", n, len(clusterOperatorConditions), strings.Join(clusterOperatorConditions, ", "))
			continue
		}
		seen := map[string]int{}
		for j, cond := range o.Conditions {
			cp := fmt.Sprintf("%s.conditions[%d]", p, j)
			c.Condition(cp, cond)
			if first, dup := seen[cond.Type]; dup && cond.Type != "" {
				c.Errorf(cp+".type", "%s is given twice (first at line %d); an operator has one condition per type", cond.Type, c.Line(fmt.Sprintf("%s.conditions[%d]", p, first)))
			}
			seen[cond.Type] = j
		}
	}
	for name := range declaredBy {
		c.operators[name], c.objects[name] = true, true
	}
	for _, st := range sc.Steps {
		if name, ok := scenarios.CreatedName(st.Create); ok && st.Create["kind"] == ClusterOperatorGVK.Kind {
			c.objects[name] = true
		}
	}
}

func (c *checker) step(p string, st scenarios.Step) {
	switch arg := st.Arg.(type) {
	case bool:
		if !arg {
			c.Errorf(p+"."+st.Action, "false is no action; write %s: true, or leave the step out", st.Action)
		}
	case string:
		c.operatorRef(p+"."+st.Action, arg)
	case *SetCondition:
		if arg.Operator == "" {
			c.Errorf(p+".setCondition.operator", "required: the operator whose condition changes")
		} else {
			c.operatorRef(p+".setCondition.operator", arg.Operator)
		}
		c.Condition(p+".setCondition", arg.Condition)
	case *SlowOperator:
		if arg.Operator == "" {
			c.Errorf(p+".slowOperator.operator", "required: the operator that gets slow")
		} else {
			c.operatorRef(p+".slowOperator.operator", arg.Operator)
		}
		if d := arg.AnswerDelay.Duration; d < 0 {
			c.Errorf(p+".slowOperator.answerDelay", "%v is negative; use 0 or more", d)
		}
	}
	if e := st.Expect; e != nil && e.Object != "" && (e.Kind == "" || e.Kind == ClusterOperatorGVK.Kind) &&
		c.members <= scenarios.MaxProcesses && !c.objects[e.Object] {
		c.Errorf(p+".expect.object", "no ClusterOperator %q; declared operators: %s (or create one with a create step)", e.Object, c.declared())
	}
}

func (c *checker) operatorRef(p, name string) {
	if c.members <= scenarios.MaxProcesses && !c.operators[name] {
		c.Errorf(p, "no operator %q; declared: %s", name, c.declared())
	}
}

// declared lists the operator names briefly, a fleet as its first and last member.
func (c *checker) declared() string {
	var names []string
	for _, o := range c.w.Operators {
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
