package olm

import (
	"embed"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/opcert/opcert/scenarios"
)

// Seed 002's part of the scenario format.

// World is what an olm scenario declares beside the shared fields.
type World struct {
	// Operator is the operator OLM installed: its CSV's name, which its
	// Probe and OperatorCondition take, and its namespace.
	Operator Operator `yaml:"operator,omitempty"`
	// CRDs are the operator's owned CRDs (the fixtures' sample kinds) and
	// the condition annotations each carries at the start.
	CRDs []CRD `yaml:"crds"`
	// Namespaces are the namespaces whose CRs the aggregator counts (the
	// operator's OperatorGroup targets); default: those the CRs use.
	Namespaces []string `yaml:"namespaces,omitempty"`
	// CRs exist at the start, with their conditions.
	CRs []CR `yaml:"crs,omitempty"`
	// Probe, if set, is created by the scenario at the start, as an
	// operator that writes its Probe itself would have it (manager
	// operator) or with no spec; otherwise the aggregator creates the
	// Probe when a CRD opts in.
	Probe *ProbeSpec `yaml:"probe,omitempty"`
	// OperatorCondition, if set, is created at the start for the gate
	// OLM shipped, with the operator's spec.conditions.
	OperatorCondition *OperatorCondition `yaml:"operatorCondition,omitempty"`
	// Gate is the gate the scenario's upgrades ask OLM to apply: probe
	// (the seed's, the default) or operatorcondition (what OLM shipped).
	Gate string `yaml:"gate,omitempty"`
	// Load adds many CRs and random changes of their conditions (the
	// benchmark's world).
	Load *Load `yaml:"load,omitempty"`
}

// Operator names the installed operator.
type Operator struct {
	// CSV is its ClusterServiceVersion's name (default
	// foo-operator.v1.0.0).
	CSV string `yaml:"csv,omitempty"`
	// Namespace is where it is installed (default operators).
	Namespace string `yaml:"namespace,omitempty"`
}

// CRD is an owned CRD and its annotations; a nil expression is no
// annotation.
type CRD struct {
	// Name is the CRD's: foos.example.com or bars.example.com, the
	// sample CRDs opcert installs.
	Name string `yaml:"name"`
	// Upgradeable is the expression of its Upgradeable annotation.
	Upgradeable *string `yaml:"upgradeable,omitempty"`
	// Important is the expression of its Important annotation.
	Important *string `yaml:"important,omitempty"`
	// Other annotations under the condition prefix (an unsupported
	// condition name: the aggregator must say so).
	Other []Annotation `yaml:"other,omitempty"`
}

// Annotation is a condition annotation by its condition name (the part
// after olm.operatorframework.io/condition.).
type Annotation struct {
	// Name is the condition's name.
	Name string `yaml:"name"`
	// Expression is the annotation's value.
	Expression string `yaml:"expression"`
}

// CR is a custom resource of an owned CRD.
type CR struct {
	// Kind is Foo or Bar, of a CRD among the world's crds.
	Kind string `yaml:"kind"`
	// Namespace is the CR's.
	Namespace string `yaml:"namespace"`
	// Name is the CR's.
	Name string `yaml:"name"`
	// Conditions are its status conditions, one per type.
	Conditions []scenarios.Condition `yaml:"conditions,omitempty"`
}

// SetConditions is the operator writing conditions of a CR: each given
// condition is set (added or replaced by type, in place), each type in
// Remove is taken out.
type SetConditions struct {
	// Kind is the CR's, Foo or Bar.
	Kind string `yaml:"kind"`
	// Namespace is the CR's.
	Namespace string `yaml:"namespace"`
	// Name is the CR's.
	Name string `yaml:"name"`
	// Conditions are set, each added or replacing the one of its type.
	Conditions []scenarios.Condition `yaml:"conditions,omitempty"`
	// Remove are the types of the conditions taken out.
	Remove []string `yaml:"remove,omitempty"`
}

// Operand is a request to the operator: the operand of one of its CRs
// enters Phase (OperandMigrating, OperandIdle). The world writes it on the
// CR as the annotation opcert.io/operand (OperandAnnotation), which the
// operator, watching its CRs, reads; what it then writes is its own
// (operator.go).
type Operand struct {
	// Kind is the CR's, Foo or Bar.
	Kind string `yaml:"kind"`
	// Namespace is the CR's.
	Namespace string `yaml:"namespace"`
	// Name is the CR's.
	Name string `yaml:"name"`
	// Phase is Migrating (a critical process runs) or Idle.
	Phase string `yaml:"phase"`
}

// The phases of an operand, and the annotation that carries the phase:
// Migrating is 002 §Motivation's "critical process" (the seed's example
// migrates a database schema), during which OLM must not upgrade the
// operator; Idle is none.
const (
	OperandAnnotation = "opcert.io/operand"
	OperandMigrating  = "Migrating"
	OperandIdle       = "Idle"
)

// ObjectRef names a CR.
type ObjectRef struct {
	// Kind is the CR's, Foo or Bar.
	Kind string `yaml:"kind"`
	// Namespace is the CR's.
	Namespace string `yaml:"namespace"`
	// Name is the CR's.
	Name string `yaml:"name"`
}

// ProbeSpec is a Probe's spec as a scenario gives it: Nil for a Probe
// without spec.
type ProbeSpec struct {
	// Nil makes a Probe without spec; it takes no other field.
	Nil bool `yaml:"nil,omitempty"`
	// Manager is crdAnnotations (the aggregator keeps the spec) or
	// operator (the operator does).
	Manager string `yaml:"manager,omitempty"`
	// ProbeResources are the spec's entries.
	ProbeResources []ProbeResource `yaml:"probeResources,omitempty"`
}

// ProbeResource is one entry of a Probe's spec.probeResources.
type ProbeResource struct {
	// Resource is a CRD's name, like foos.example.com.
	Resource string `yaml:"resource"`
	// Upgradeable is the entry's Upgradeable expression.
	Upgradeable string `yaml:"upgradeable,omitempty"`
	// Important is the entry's Important expression.
	Important string `yaml:"important,omitempty"`
}

// OperatorCondition is the operator's OperatorCondition at the start.
type OperatorCondition struct {
	// Conditions are its spec.conditions, the operator's.
	Conditions []scenarios.Condition `yaml:"conditions,omitempty"`
}

// Override is the admin's spec.overrides entry of the OperatorCondition
// (an empty Status removes it).
type Override struct {
	// Status is True, False or Unknown; empty removes the override.
	Status string `yaml:"status,omitempty"`
	// Reason is a CamelCase word, required with a status.
	Reason string `yaml:"reason,omitempty"`
	// Message is for a human.
	Message string `yaml:"message,omitempty"`
}

// Load is many CRs of one kind spread over namespaces, and Changes
// random condition writes to them, one every Every, drawn from Seed.
type Load struct {
	// Kind is the CRs' kind, Foo or Bar.
	Kind string `yaml:"kind"`
	// CRs is how many CRs, 1 to 20000.
	CRs int `yaml:"crs"`
	// Namespaces is how many namespaces they spread over, 1 to 200.
	Namespaces int `yaml:"namespaces"`
	// Changes is how many random condition writes follow, 0 to 200000.
	Changes int `yaml:"changes,omitempty"`
	// Every is the time between two changes, required with changes.
	Every *scenarios.Duration `yaml:"every,omitempty"`
	// Seed makes the changes reproducible.
	Seed uint64 `yaml:"seed,omitempty"`
}

// Actions of olm scenarios.
const (
	actSetConditions = "setConditions"        // the operator writes conditions of a CR
	actCreateCR      = "createCR"             // the operator creates a CR, with its conditions
	actDeleteCR      = "deleteCR"             // the operator deletes a CR
	actAnnotate      = "annotate"             // a CRD's condition annotations become exactly these
	actEditProbe     = "editProbeSpec"        // someone rewrites the Probe's spec
	actProbeStatus   = "setProbeUpgradeable"  // the operator sets its Probe's Upgradeable condition (type Upgradeable), through package probe
	actOCCondition   = "setOperatorCondition" // the operator sets an entry of its OperatorCondition's spec.conditions
	actOverride      = "override"             // the admin sets or removes the OperatorCondition's spec.overrides entry of Upgradeable
	actUpgrade       = "upgrade"              // OLM is asked to upgrade the operator to the CSV named
	actOperand       = "operand"              // a request to the operator: a CR's operand enters a phase (the world's write)
	actKill          = "kill"                 // the actor named dies: aggregator, olm, olm-conditions or operator
	actRestart       = "restart"              // the actor named is killed if it runs, and started again
)

// Defaults of the world.
const (
	defaultCSV       = "foo-operator.v1.0.0"
	defaultNamespace = "operators"
	GateProbe        = "probe"
	GateOperatorCond = "operatorcondition"
	maxCRs           = 20000
	maxNamespaces    = 200
)

// ownedCRDs are the CRDs the fixtures install that a scenario may own:
// name -> kind.
var ownedCRDs = map[string]string{"foos.example.com": "Foo", "bars.example.com": "Bar"}

// kindCRD is the owned CRD of a kind.
func kindCRD(kind string) (string, bool) {
	for crd, k := range ownedCRDs {
		if k == kind {
			return crd, true
		}
	}
	return "", false
}

// probeConditions are what a Probe reports (002 §Example Workflow; the
// ProbeValid condition is opcert's: the errors on the Probe of decision 002,
// conformance/olm/README.md).
var probeConditions = []string{"Upgradeable", "ProbeValid"}

// conditionType is a condition type as 002 §Design Details gives it:
// CamelCase or foo.example.com/CamelCase.
var conditionType = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Z][A-Za-z0-9]*$`)

//go:embed scenarios/*.yaml
var builtinFiles embed.FS

// scenarioKind is the mechanism's part of the scenario format, registered
// with its plug-in (conformance.Plugin.Scenarios).
var scenarioKind = scenarios.Kind{
	World:      reflect.TypeFor[World](),
	Actions:    stepActions, // actions.go: with their value types and handlers
	Expects:    ProbeGVK,
	Conditions: probeConditions,
	Roles:      []string{RoleAggregator, RoleOLM, RoleOperator},
	Validate:   validate,
	Builtins:   scenarios.Embedded(builtinFiles, "scenarios"),
}

// scenarioWorld is a scenario's World (Parse always sets it).
func scenarioWorld(sc *scenarios.Scenario) *World { return sc.World.(*World) }

func (w *World) csv() string {
	if w.Operator.CSV == "" {
		return defaultCSV
	}
	return w.Operator.CSV
}

func (w *World) namespace() string {
	if w.Operator.Namespace == "" {
		return defaultNamespace
	}
	return w.Operator.Namespace
}

func (w *World) gate() string {
	if w.Gate == "" {
		return GateProbe
	}
	return w.Gate
}

// targets are the namespaces whose CRs count: as given, or those the CRs
// and the load use, sorted.
func (w *World) targets() []string {
	if len(w.Namespaces) > 0 {
		return w.Namespaces
	}
	set := map[string]bool{}
	for _, cr := range w.CRs {
		set[cr.Namespace] = true
	}
	for _, ns := range w.loadNamespaces() {
		set[ns] = true
	}
	out := make([]string, 0, len(set))
	for ns := range set {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// loadNamespaces are the namespaces the load spreads its CRs over.
func (w *World) loadNamespaces() []string {
	if w.Load == nil {
		return nil
	}
	out := make([]string, w.Load.Namespaces)
	for i := range out {
		out[i] = fmt.Sprintf("load-%03d", i)
	}
	return out
}

// crdNames are the owned CRDs' names, in order.
func (w *World) crdNames() []string {
	out := make([]string, 0, len(w.CRDs))
	for _, c := range w.CRDs {
		out = append(out, c.Name)
	}
	slices.Sort(out)
	return out
}

type checker struct {
	*scenarios.Check
	w *World
}

func validate(check *scenarios.Check, sc *scenarios.Scenario) {
	c := &checker{Check: check, w: scenarioWorld(sc)}
	w := c.w
	c.Label("operator.namespace", w.namespace(), 63-scenarios.RunPrefixRoom)
	if len(w.csv()) > 253-scenarios.RunPrefixRoom || !csvName.MatchString(w.csv()) {
		c.Errorf("operator.csv", "%q is not a CSV name: use lowercase letters, digits, '-' and '.', like foo-operator.v1.0.0", w.csv())
	}
	if len(w.CRDs) == 0 {
		c.Errorf("crds", "required: the operator's owned CRDs (%s)", strings.Join(sortedKeys(ownedCRDs), ", "))
	}
	seen := map[string]bool{}
	for i, crd := range w.CRDs {
		p := fmt.Sprintf("crds[%d]", i)
		c.crd(p, crd)
		if seen[crd.Name] {
			c.Errorf(p+".name", "CRD %s is given twice", crd.Name)
		}
		seen[crd.Name] = true
	}
	for i, ns := range w.Namespaces {
		c.Label(fmt.Sprintf("namespaces[%d]", i), ns, 63-scenarios.RunPrefixRoom)
	}
	crs := map[ObjectRef]bool{}
	for i, cr := range w.CRs {
		p := fmt.Sprintf("crs[%d]", i)
		c.cr(p, cr.Kind, cr.Namespace, cr.Name)
		c.conditions(p+".conditions", cr.Conditions)
		ref := ObjectRef{cr.Kind, cr.Namespace, cr.Name}
		if crs[ref] {
			c.Errorf(p, "%s %s/%s is given twice", cr.Kind, cr.Namespace, cr.Name)
		}
		crs[ref] = true
	}
	if w.Probe != nil {
		c.probe("probe", *w.Probe)
	}
	if w.OperatorCondition != nil {
		c.conditions("operatorCondition.conditions", w.OperatorCondition.Conditions)
		for i, cond := range w.OperatorCondition.Conditions {
			c.reason(fmt.Sprintf("operatorCondition.conditions[%d].reason", i), cond.Reason)
		}
	}
	if w.Gate != "" && w.Gate != GateProbe && w.Gate != GateOperatorCond {
		c.Errorf("gate", "%q is not a gate; use %s (the seed's) or %s (what OLM shipped)", w.Gate, GateProbe, GateOperatorCond)
	}
	if w.Load != nil {
		c.load(*w.Load)
	}
	for i, st := range sc.Steps {
		c.step(fmt.Sprintf("steps[%d]", i), st)
	}
}

var csvName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (c *checker) crd(p string, crd CRD) {
	if _, ok := ownedCRDs[crd.Name]; !ok {
		c.Errorf(p+".name", "%q is not a CRD opcert installs; use one of %s", crd.Name, strings.Join(sortedKeys(ownedCRDs), ", "))
	}
	for i, a := range crd.Other {
		if a.Name == "" || strings.ContainsAny(a.Name, " /") {
			c.Errorf(fmt.Sprintf("%s.other[%d].name", p, i), "%q is not a condition name (the part after olm.operatorframework.io/condition.)", a.Name)
		}
	}
}

// cr checks a CR's reference: a kind of an owned CRD and a namespace the
// aggregator may count.
func (c *checker) cr(p, kind, ns, name string) {
	crd, ok := kindCRD(kind)
	switch {
	case !ok:
		c.Errorf(p+".kind", "%q is not a kind of the sample CRDs; use Foo or Bar", kind)
	case !slices.ContainsFunc(c.w.CRDs, func(x CRD) bool { return x.Name == crd }):
		c.Errorf(p+".kind", "%s's CRD %s is not among crds", kind, crd)
	}
	c.Label(p+".namespace", ns, 63-scenarios.RunPrefixRoom)
	c.Label(p+".name", name, 63)
}

func (c *checker) conditions(p string, conds []scenarios.Condition) {
	types := map[string]bool{}
	for i, cond := range conds {
		q := fmt.Sprintf("%s[%d]", p, i)
		if !conditionType.MatchString(cond.Type) {
			c.Errorf(q+".type", "%q is not a condition type: CamelCase or prefix/CamelCase (002 §Design Details)", cond.Type)
		}
		if types[cond.Type] {
			c.Errorf(q+".type", "condition %s is given twice", cond.Type)
		}
		types[cond.Type] = true
		c.Status(q+".status", cond.Status, true)
	}
}

// reason checks the reason of a condition an API schema holds to
// metav1.Condition's (an OperatorCondition's, a Probe's): required, a
// CamelCase word.
func (c *checker) reason(p, r string) {
	if !camelReason.MatchString(r) {
		c.Errorf(p, "%q is not a reason: give a CamelCase word like AdminOverride (a metav1.Condition requires one)", r)
	}
}

var camelReason = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

func (c *checker) probe(p string, ps ProbeSpec) {
	switch {
	case ps.Nil && (ps.Manager != "" || len(ps.ProbeResources) > 0):
		c.Errorf(p, "a Probe with nil: true has no spec; leave manager and probeResources out")
	case !ps.Nil && ps.Manager != "crdAnnotations" && ps.Manager != "operator":
		c.Errorf(p+".manager", "%q is not a manager; use crdAnnotations or operator (002 §Example Workflow)", ps.Manager)
	}
	for i, r := range ps.ProbeResources {
		if r.Resource == "" {
			c.Errorf(fmt.Sprintf("%s.probeResources[%d].resource", p, i), "required: a CRD's name, like foos.example.com")
		}
	}
}

func (c *checker) load(l Load) {
	if _, ok := kindCRD(l.Kind); !ok {
		c.Errorf("load.kind", "%q is not a kind of the sample CRDs; use Foo or Bar", l.Kind)
	}
	if l.CRs < 1 || l.CRs > maxCRs {
		c.Errorf("load.crs", "%d is out of range; use 1 to %d", l.CRs, maxCRs)
	}
	if l.Namespaces < 1 || l.Namespaces > maxNamespaces {
		c.Errorf("load.namespaces", "%d is out of range; use 1 to %d", l.Namespaces, maxNamespaces)
	}
	if l.Changes < 0 || l.Changes > 10*maxCRs {
		c.Errorf("load.changes", "%d is out of range; use 0 to %d", l.Changes, 10*maxCRs)
	}
	if l.Changes > 0 && (l.Every == nil || l.Every.Duration <= 0) {
		c.Errorf("load.every", "required with changes: the time between two, like 1s")
	}
}

var actors = []string{actorAggregator, actorOLM, actorCopier, actorOperator}

func (c *checker) step(p string, st scenarios.Step) {
	switch arg := st.Arg.(type) {
	case *SetConditions:
		c.cr(p+".setConditions", arg.Kind, arg.Namespace, arg.Name)
		c.conditions(p+".setConditions.conditions", arg.Conditions)
		if len(arg.Conditions) == 0 && len(arg.Remove) == 0 {
			c.Errorf(p+".setConditions", "changes nothing; give conditions to set or types to remove")
		}
	case *CR:
		c.cr(p+".createCR", arg.Kind, arg.Namespace, arg.Name)
		c.conditions(p+".createCR.conditions", arg.Conditions)
	case *ObjectRef:
		c.cr(p+".deleteCR", arg.Kind, arg.Namespace, arg.Name)
	case *Operand:
		c.cr(p+".operand", arg.Kind, arg.Namespace, arg.Name)
		if arg.Phase != OperandMigrating && arg.Phase != OperandIdle {
			c.Errorf(p+".operand.phase", "%q is not a phase; use %s (a critical process runs, 002 §Motivation) or %s", arg.Phase, OperandMigrating, OperandIdle)
		}
	case *CRD:
		c.crd(p+".annotate", *arg)
		if !slices.ContainsFunc(c.w.CRDs, func(x CRD) bool { return x.Name == arg.Name }) {
			c.Errorf(p+".annotate.name", "CRD %s is not among crds", arg.Name)
		}
	case *ProbeSpec:
		c.probe(p+".editProbeSpec", *arg)
	case *scenarios.Condition:
		q := p + "." + st.Action
		if st.Action == actProbeStatus && arg.Type != "Upgradeable" {
			c.Errorf(q+".type", "the operator manages only its Upgradeable condition (002 §Writing to the Probe Resource Directly)")
		}
		c.conditions(q, []scenarios.Condition{*arg})
		c.reason(q+".reason", arg.Reason)
	case *Override:
		c.Status(p+".override.status", arg.Status, false)
		if arg.Status != "" {
			c.reason(p+".override.reason", arg.Reason)
		}
	case string:
		switch st.Action {
		case actUpgrade:
			if !csvName.MatchString(arg) {
				c.Errorf(p+".upgrade", "%q is not a CSV name, like foo-operator.v2.0.0", arg)
			}
		case actKill, actRestart:
			if !slices.Contains(actors, arg) {
				c.Errorf(p+"."+st.Action, "no actor %q; use one of %s", arg, strings.Join(actors, ", "))
			}
		}
	}
}
