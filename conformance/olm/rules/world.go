package rules

import (
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/sim/timeline"
)

// The seed-002 world as the rules read it off the timeline (doc.go,
// Timeline contract): owned CRDs with their annotations, custom resources
// with their conditions, Probes, OperatorConditions and Upgrades. Objects
// are values replaced on each write, never changed in place, so that a
// world shares them with the one before it: a rule that judges a change
// reads the world before and after it, and one that looks back the worlds
// of the last reaction bound (online.go).

// world is every object as the events up to one point left it.
type world struct {
	crds map[string]crd // by name: foos.example.com
	// crs are by namespace, then reference: a CR's write copies its
	// namespace's map alone, so that keeping the world after each event
	// costs a namespace's CRs per write, not every CR (10,000 CRs over 50
	// namespaces in the aggregation benchmark).
	crs      map[string]map[timeline.ObjectRef]cr
	probes   map[timeline.ObjectRef]probe
	opConds  map[timeline.ObjectRef]opCond
	upgrades map[timeline.ObjectRef]upgrade
}

// clone shares every map with w: apply copies the one a write changes
// before changing it, so that a write costs the objects of its kind, not
// every object.
func (w *world) clone() *world {
	c := *w
	return &c
}

// namespaceCRs is w's map of the CRs of ns, its own copy (clone shares
// the inner maps with the world before).
func (w *world) namespaceCRs(ns string) map[timeline.ObjectRef]cr {
	w.crs = maps.Clone(w.crs)
	m := maps.Clone(w.crs[ns])
	if m == nil {
		m = map[timeline.ObjectRef]cr{}
	}
	w.crs[ns] = m
	return m
}

// crd is an owned CRD: its annotations and names.
type crd struct {
	annotations map[string]string
	plural      string
	kind        string // "" when the timeline does not record it
}

// group is the API group a CRD named plural.group serves.
func crdGroup(name string) string {
	_, g, _ := strings.Cut(name, ".")
	return g
}

// cr is a custom resource: its conditions in .status.conditions order,
// and whether the world asked its operand to migrate (operandAnnotation).
type cr struct {
	ref       timeline.ObjectRef
	migrating bool
	order     []string          // condition types, in the CR's order
	status    map[string]string // type -> status
}

// probe is a Probe (seed 002).
type probe struct {
	ref       timeline.ObjectRef
	spec      *probeSpec // nil: absent or null (002 §Example Workflow note)
	resources []resourceStatus
	conds     map[string]timeline.Condition
	// gens are the conditions' observedGeneration, when the timeline
	// records status.conditions (otherwise nil).
	gens       map[string]int64
	generation int64
}

type probeSpec struct {
	Manager        string          `json:"manager,omitempty"`
	ProbeResources []probeResource `json:"probeResources,omitempty"`
}

type probeResource struct {
	Resource    string `json:"resource"`
	Upgradeable string `json:"upgradeable,omitempty"`
	Important   string `json:"important,omitempty"`
}

type resourceStatus struct {
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Namespace string   `json:"namespace"`
	Reasons   []string `json:"reasons"`
}

// opCond is an OperatorCondition (docs/upstream.md): spec and status conditions.
type opCond struct {
	generation int64
	spec       opCondSpec
	status     []ocCondition
}

type opCondSpec struct {
	Conditions []ocCondition `json:"conditions,omitempty"`
	Overrides  []ocCondition `json:"overrides,omitempty"`
}

type ocCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// upgrade is an Upgrade: the scenario's request and the gate's answer.
type upgrade struct {
	spec   upgradeSpec
	status upgradeStatus
}

type upgradeSpec struct {
	From string `json:"from"`
	To   string `json:"to"`
	Gate string `json:"gate"`
}

type upgradeStatus struct {
	Phase   string `json:"phase,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// inWorld tells whether o is one of the world's objects (apply): only
// their writes change what a rule reads.
func inWorld(o timeline.ObjectRef) bool {
	return isCRD(o) || isProbe(o) || o.Kind == kindOperatorCondition && o.Group == groupOperators ||
		o.Kind == kindUpgrade && o.Group == groupOpcert || isCR(o)
}

// apply moves w past one API write.
func (w *world) apply(e timeline.Event) {
	o := e.Object
	gone := e.Verb == timeline.VerbDelete
	switch {
	case o.Kind == kindCRD && o.Group == groupCRD:
		w.crds = maps.Clone(w.crds)
		if gone {
			delete(w.crds, o.Name)
			return
		}
		w.crds[o.Name] = w.crds[o.Name].with(e)
	case o.Kind == kindProbe && o.Group == groupOperators:
		w.probes = maps.Clone(w.probes)
		if gone {
			delete(w.probes, o)
			return
		}
		w.probes[o] = w.probes[o].with(e)
	case o.Kind == kindOperatorCondition && o.Group == groupOperators:
		w.opConds = maps.Clone(w.opConds)
		if gone {
			delete(w.opConds, o)
			return
		}
		w.opConds[o] = w.opConds[o].with(e)
	case o.Kind == kindUpgrade && o.Group == groupOpcert:
		w.upgrades = maps.Clone(w.upgrades)
		if gone {
			delete(w.upgrades, o)
			return
		}
		w.upgrades[o] = w.upgrades[o].with(e)
	case o.Group != "" && o.Group != groupOperators && o.Group != groupOpcert && o.Group != groupCRD && o.Namespace != "":
		// A namespaced object of another group: a custom resource, which
		// some probe resource may name.
		crs := w.namespaceCRs(o.Namespace)
		if gone {
			delete(crs, o)
			return
		}
		crs[o] = crs[o].with(e)
	}
}

func (c crd) with(e timeline.Event) crd {
	timeline.Set(e, fieldAnnotations, &c.annotations)
	timeline.Set(e, fieldPlural, &c.plural)
	timeline.Set(e, fieldKind, &c.kind)
	if f, ok := e.Field(fieldNames); ok {
		var names struct{ Plural, Kind string }
		f.Decode(&names)
		c.plural, c.kind = names.Plural, names.Kind
	}
	return c
}

func (c cr) with(e timeline.Event) cr {
	c.ref = e.Object
	c.status = maps.Clone(c.status)
	if c.status == nil {
		c.status = map[string]string{}
	}
	c.order = slices.Clone(c.order)
	if f, ok := e.Field(fieldAnnotations); ok {
		var ann map[string]string
		f.Decode(&ann)
		c.migrating = ann[operandAnnotation] == operandMigrating
	}
	for _, ch := range e.Conditions {
		if ch.After == nil {
			delete(c.status, ch.Type)
			c.order = slices.DeleteFunc(c.order, func(t string) bool { return t == ch.Type })
			continue
		}
		if _, had := c.status[ch.Type]; !had {
			c.order = append(c.order, ch.Type)
		}
		c.status[ch.Type] = ch.After.Status
	}
	// The recorded list, when there is one, gives the CR's own order.
	if f, ok := e.Field(fieldConditions); ok {
		var list []ocCondition
		f.Decode(&list)
		c.order, c.status = nil, map[string]string{}
		for _, x := range list {
			c.order = append(c.order, x.Type)
			c.status[x.Type] = x.Status
		}
	}
	return c
}

func (p probe) with(e timeline.Event) probe {
	if e.Verb == timeline.VerbCreate {
		p = probe{}
	}
	p.ref = e.Object
	timeline.SetPointer(e, fieldSpec, &p.spec)
	timeline.Set(e, fieldProbeResources, &p.resources)
	timeline.Set(e, fieldGeneration, &p.generation)
	if f, ok := e.Field(fieldConditions); ok {
		var list []ocCondition
		f.Decode(&list)
		p.gens = map[string]int64{}
		for _, c := range list {
			p.gens[c.Type] = c.ObservedGeneration
		}
	}
	p.conds = e.ApplyConditions(maps.Clone(p.conds))
	return p
}

func (o opCond) with(e timeline.Event) opCond {
	if e.Verb == timeline.VerbCreate {
		o = opCond{}
	}
	timeline.Set(e, fieldSpec, &o.spec)
	timeline.Set(e, fieldConditions, &o.status)
	timeline.Set(e, fieldGeneration, &o.generation)
	return o
}

func (u upgrade) with(e timeline.Event) upgrade {
	if e.Verb == timeline.VerbCreate {
		u = upgrade{}
	}
	timeline.Set(e, fieldSpec, &u.spec)
	timeline.Set(e, fieldStatus, &u.status)
	return u
}

// crdOf is the name of the CRD that serves r: the CRD of r's group whose
// recorded kind is r's; when the timeline does not record kinds, the one
// whose plural is r's kind in lower case with "s" or "es", or the only
// CRD of the group.
func (w *world) crdOf(r timeline.ObjectRef) string {
	var ofGroup []string
	for name, c := range w.crds {
		if crdGroup(name) != r.Group {
			continue
		}
		if c.kind == r.Kind {
			return name
		}
		if c.kind == "" {
			ofGroup = append(ofGroup, name)
		}
	}
	lower := strings.ToLower(r.Kind)
	for _, name := range ofGroup {
		if p := w.crds[name].plural; p == lower+"s" || p == lower+"es" {
			return name
		}
	}
	if len(ofGroup) == 1 {
		return ofGroup[0]
	}
	return lower + "s." + r.Group
}

// served tells whether an owned CRD serves group: whether its objects
// are CRs a probe resource may name.
func (w *world) served(group string) bool {
	for name := range w.crds {
		if crdGroup(name) == group {
			return true
		}
	}
	return false
}

// plural is the plural a CRD's CRs are listed under: its recorded
// spec.names.plural, or the first label of its name.
func (w *world) plural(crdName string) string {
	if p := w.crds[crdName].plural; p != "" {
		return p
	}
	p, _, _ := strings.Cut(crdName, ".")
	return p
}

// annotated are the owned CRDs that carry an Upgradeable or Important
// condition annotation, by name: those the Probe's spec lists (an
// annotation under the prefix with another name is no OLM supported
// condition, 002 §Design Details, and lists nothing).
func (w *world) annotated() []string {
	var out []string
	for name, c := range w.crds {
		_, up := c.annotations[annotationPrefix+nameUpgradeable]
		_, imp := c.annotations[annotationPrefix+nameImportant]
		if up || imp {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
