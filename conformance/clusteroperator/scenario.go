package clusteroperator

import (
	"embed"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/workload"
)

// Seed 001's part of the scenario format: a release and its components,
// in payload order, each an operator with its operands; the nodes a
// DaemonSet runs on; and the actions of an upgrade: the admin's request,
// an operand that never reaches the new version, a node that never
// updates, an admin-correctable blocker, an operator process dying.

// World is what a clusteroperator scenario declares beside the shared fields.
type World struct {
	// Release is the version installed at time 0 (the payload's version).
	Release string `yaml:"release"`
	// Nodes are where the DaemonSets run and the Deployments' pods spread
	// (default master-0, master-1, master-2).
	Nodes []string `yaml:"nodes,omitempty"`
	// Components are the payload's, in its order.
	Components []Component `yaml:"components"`
}

// Component is one operator of the payload, reporting the ClusterOperator
// of its name, with its operands in the namespace of its name.
type Component struct {
	// Name is the component's: its ClusterOperator's and its namespace's.
	Name string `yaml:"name"`
	// Operands are the workloads its operator rolls out, at least one.
	Operands []Operand `yaml:"operands"`
	// ReadyAfter is how long a new pod of its operands takes to get ready
	// (default 30s): the pace of its rollouts.
	ReadyAfter *scenarios.Duration `yaml:"readyAfter,omitempty"`
	// Failing reports failure under the condition's older name, Failing,
	// instead of Degraded (decision 001,
	// conformance/clusteroperator/README.md: the same condition).
	Failing bool `yaml:"failing,omitempty"`
	// Trap sorts its ClusterOperator manifest before its operator's
	// Deployment in the payload (001's NOTE: the version operator is stuck).
	Trap bool `yaml:"trap,omitempty"`
}

// Operand is a workload the component's operator rolls out.
type Operand struct {
	// Kind is Deployment (Replicas pods) or DaemonSet (a pod per node).
	Kind string `yaml:"kind"`
	// Name is the workload's, unique in its component.
	Name string `yaml:"name"`
	// Replicas is a Deployment's number of pods, 1 to 20; a DaemonSet
	// takes none.
	Replicas int `yaml:"replicas,omitempty"`
}

// StickOperand makes an operand's pods of a version never get ready: an
// operand that never reaches it.
type StickOperand struct {
	// Component is the operand's component, by name.
	Component string `yaml:"component"`
	// Operand is the operand, by name.
	Operand string `yaml:"operand"`
	// Version is the release whose pods never get ready.
	Version string `yaml:"version"`
}

// BlockUpgrade is an admin-correctable condition of a component: what the
// admin must fix before an upgrade (001 §What should an operator report,
// honored 4).
type BlockUpgrade struct {
	// Component is the component, by name.
	Component string `yaml:"component"`
	// Message says what the admin must fix.
	Message string `yaml:"message"`
}

// Actions of clusteroperator scenarios.
const (
	actUpgrade  = "upgrade"         // the admin asks for the named release (ClusterVersion spec.desiredUpdate)
	actStick    = "stickOperand"    // an operand's pods of a version never get ready
	actHoldNode = "holdNode"        // the named node never runs a new pod
	actBlock    = "blockUpgrade"    // the admin's ConfigMap holds an upgrade blocker for the component
	actUnblock  = "unblockUpgrade"  // the named component's blocker is fixed
	actKill     = "killOperator"    // the named component's operator dies and stays down until restartOperator
	actRestart  = "restartOperator" // the named component's operator starts again
)

// clusterOperatorConditions are what a component reports (001
// §Conditions; Failing is Degraded's older name).
var clusterOperatorConditions = []string{"Available", "Degraded", "Failing", "Progressing", "Upgradeable"}

const (
	defaultReadyAfter = 30 * time.Second
	maxComponents     = 30
	maxReplicas       = 20
	maxNodes          = 20
)

var defaultNodes = []string{"master-0", "master-1", "master-2"}

// version is what a release or an operand's version may be: a label
// value, as it is written into labels and file contents.
var version = regexp.MustCompile(`^[0-9A-Za-z]([0-9A-Za-z._-]{0,61}[0-9A-Za-z])?$`)

//go:embed scenarios/*.yaml
var builtinFiles embed.FS

// scenarioKind is the mechanism's part of the scenario format, registered
// with its plug-in (conformance.Plugin.Scenarios).
var scenarioKind = scenarios.Kind{
	World:      reflect.TypeFor[World](),
	Actions:    stepActions, // mechanism.go: with their value types and handlers
	Expects:    ClusterOperatorGVK,
	Conditions: clusterOperatorConditions,
	Roles:      []string{RoleOperator, RoleVersionOperator, workload.Role},
	Validate:   validate,
	Builtins:   scenarios.Embedded(builtinFiles, "scenarios"),
}

// scenarioWorld is a scenario's World (Parse always sets it).
func scenarioWorld(sc *scenarios.Scenario) *World { return sc.World.(*World) }

// nodes are the scenario's nodes, defaulted.
func (w *World) nodes() []string {
	if len(w.Nodes) == 0 {
		return defaultNodes
	}
	return w.Nodes
}

// readyAfter is the pace of a component's pods.
func (c Component) readyAfter() time.Duration {
	if c.ReadyAfter == nil {
		return defaultReadyAfter
	}
	return c.ReadyAfter.Duration
}

func (w *World) component(name string) (Component, bool) {
	i := slices.IndexFunc(w.Components, func(c Component) bool { return c.Name == name })
	if i < 0 {
		return Component{}, false
	}
	return w.Components[i], true
}

// maxName bounds a component's name: its operator's namespace,
// "<name>-operator", is a DNS-1123 label (63) after the run prefix.
const maxName = 63 - scenarios.RunPrefixRoom - len("-operator")

type checker struct {
	*scenarios.Check
	w *World
}

func validate(check *scenarios.Check, sc *scenarios.Scenario) {
	c := &checker{Check: check, w: scenarioWorld(sc)}
	if !version.MatchString(c.w.Release) {
		c.Errorf("release", "%q is not a version: give one such as 4.0.0 (letters, digits, '.', '-', '_', up to 63)", c.w.Release)
	}
	if len(c.w.Nodes) > maxNodes {
		c.Errorf("nodes", "%d nodes; a run has at most %d", len(c.w.Nodes), maxNodes)
	}
	for i, n := range c.w.Nodes {
		c.Label(fmt.Sprintf("nodes[%d]", i), n, 63)
	}
	switch n := len(c.w.Components); {
	case n == 0:
		c.Errorf("components", "required: the payload's components, in its order")
	case n > maxComponents:
		c.Errorf("components", "%d components; a run has at most %d", n, maxComponents)
	}
	seen := map[string]int{}
	for i, comp := range c.w.Components {
		p := fmt.Sprintf("components[%d]", i)
		c.Label(p+".name", comp.Name, maxName)
		if j, dup := seen[comp.Name]; dup {
			c.Errorf(p+".name", "component %q is also components[%d] (line %d); names must be unique", comp.Name, j, c.Line(fmt.Sprintf("components[%d]", j)))
		}
		seen[comp.Name] = i
		if comp.ReadyAfter != nil && comp.ReadyAfter.Duration < 0 {
			c.Errorf(p+".readyAfter", "%v is negative; use 0 or more", comp.ReadyAfter.Duration)
		}
		c.operands(p, comp)
	}
	for i, st := range sc.Steps {
		c.step(fmt.Sprintf("steps[%d]", i), st)
	}
}

func (c *checker) operands(p string, comp Component) {
	if len(comp.Operands) == 0 {
		c.Errorf(p+".operands", "required: the workloads the operator rolls out (kind Deployment or DaemonSet)")
	}
	names := map[string]bool{}
	for j, o := range comp.Operands {
		op := fmt.Sprintf("%s.operands[%d]", p, j)
		c.Label(op+".name", o.Name, 63-scenarios.RunPrefixRoom-8)
		if names[o.Name] {
			c.Errorf(op+".name", "operand %q is given twice in component %s", o.Name, comp.Name)
		}
		names[o.Name] = true
		switch o.Kind {
		case "Deployment":
			if o.Replicas < 1 || o.Replicas > maxReplicas {
				c.Errorf(op+".replicas", "%d is out of range; a Deployment runs 1 to %d replicas", o.Replicas, maxReplicas)
			}
		case "DaemonSet":
			if o.Replicas != 0 {
				c.Errorf(op+".replicas", "a DaemonSet runs one pod per node; leave replicas out")
			}
		default:
			c.Errorf(op+".kind", "%q is not an operand kind; use Deployment or DaemonSet", o.Kind)
		}
	}
}

func (c *checker) step(p string, st scenarios.Step) {
	switch arg := st.Arg.(type) {
	case string:
		switch st.Action {
		case actUpgrade:
			if !version.MatchString(arg) {
				c.Errorf(p+"."+st.Action, "%q is not a version: give one such as 4.0.1", arg)
			}
		case actHoldNode:
			if !slices.Contains(c.w.nodes(), arg) {
				c.Errorf(p+"."+st.Action, "no node %q; nodes: %s", arg, strings.Join(c.w.nodes(), ", "))
			}
		default:
			c.componentRef(p+"."+st.Action, arg)
		}
	case *StickOperand:
		if comp, ok := c.componentRef(p+".stickOperand.component", arg.Component); ok &&
			!slices.ContainsFunc(comp.Operands, func(o Operand) bool { return o.Name == arg.Operand }) {
			c.Errorf(p+".stickOperand.operand", "component %s has no operand %q", comp.Name, arg.Operand)
		}
		if !version.MatchString(arg.Version) {
			c.Errorf(p+".stickOperand.version", "%q is not a version: the version whose pods never get ready", arg.Version)
		}
	case *BlockUpgrade:
		c.componentRef(p+".blockUpgrade.component", arg.Component)
		if strings.TrimSpace(arg.Message) == "" {
			c.Errorf(p+".blockUpgrade.message", "required: what the admin must fix")
		}
	}
	if e := st.Expect; e != nil && e.Object != "" && (e.Kind == "" || e.Kind == ClusterOperatorGVK.Kind) {
		c.componentRef(p+".expect.object", e.Object)
	}
}

func (c *checker) componentRef(p, name string) (Component, bool) {
	comp, ok := c.w.component(name)
	if !ok {
		var names []string
		for _, x := range c.w.Components {
			names = append(names, x.Name)
		}
		c.Errorf(p, "no component %q; components: %s", name, strings.Join(names, ", "))
	}
	return comp, ok
}
