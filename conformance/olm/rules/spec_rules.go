package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on what the aggregator writes of the Probe besides its
// status: OLM-003 (the spec follows the annotations) and OLM-004 (a Probe
// the operator manages, or with a nil spec, is left alone).

// specFollows is OLM-003.
func (c Config) specFollows(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r003] }

// specWatch is OLM-003's watch: the Probes' specs the aggregator keeps.
func specWatch() watch {
	return watch{
		actor: actorAggregator,
		input: func(e timeline.Event, _, _ *world) bool {
			return e.IsWrite() && (isCRD(e.Object) || isProbe(e.Object) && e.Role != RoleAggregator)
		},
		output: func(e timeline.Event) bool {
			return e.IsWrite() && isProbe(e.Object) && e.Role == RoleAggregator
		},
		check: specProblem,
	}
}

// specProblem compares every Probe managed by crdAnnotations with what
// the owned CRDs' annotations say (002 §Example Workflow): one probe
// resource per annotated CRD, its expressions verbatim, in any order (002
// gives none); and asks for a Probe when an annotation exists and none
// does.
func specProblem(w *world) (string, bool) {
	annotated := w.annotated()
	want := []probeResource{}
	for _, name := range annotated {
		ann := w.crds[name].annotations
		want = append(want, probeResource{Resource: name,
			Upgradeable: ann[annotationPrefix+nameUpgradeable], Important: ann[annotationPrefix+nameImportant]})
	}
	if len(annotated) > 0 && len(w.probes) == 0 {
		return fmt.Sprintf("no Probe, though CRD %s carries an Upgradeable or Important annotation", annotated[0]), true
	}
	judged := len(annotated) > 0
	for _, ref := range sortedRefs(w.probes) {
		p := w.probes[ref]
		if p.spec == nil || p.spec.Manager != managerCRDAnnotations {
			continue
		}
		judged = true
		got := slices.Clone(p.spec.ProbeResources)
		if got == nil {
			got = []probeResource{}
		}
		slices.SortStableFunc(got, func(a, b probeResource) int { return strings.Compare(a.Resource, b.Resource) })
		if !reflect.DeepEqual(got, want) {
			return fmt.Sprintf("%s: spec.probeResources is %s, the annotations say %s", ref, specText(p.spec.ProbeResources), specText(want)), true
		}
	}
	return "", judged
}

// specText writes probe resources as "[foos.example.com upgradeable
// "!Migrating" important "A || B"]".
func specText(l []probeResource) string {
	out := "["
	for i, r := range l {
		if i > 0 {
			out += "; "
		}
		out += r.Resource
		if r.Upgradeable != "" {
			out += fmt.Sprintf(" upgradeable %q", r.Upgradeable)
		}
		if r.Important != "" {
			out += fmt.Sprintf(" important %q", r.Important)
		}
	}
	return out + "]"
}

// leftAlone is OLM-004.
func (c Config) leftAlone(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r004] }

// judgeLeftAlone judges the aggregator's write e of a Probe, which stood
// as was before it (OLM-004).
func (g *olmJudging) judgeLeftAlone(e timeline.Event, was *world) {
	p, existed := was.probes[e.Object]
	switch {
	case !existed:
	case p.spec != nil && p.spec.Manager == managerOperator:
		g.left.FailIn(fmt.Sprintf("%s at %s: the aggregator wrote (%s) a Probe whose spec.manager is %s", e.Object, g.off(e.Time), e.Verb, managerOperator),
			e.Time, e.Time, e)
	case p.spec == nil && statusWrite(e):
		g.left.FailIn(fmt.Sprintf("%s at %s: the aggregator wrote the status of a Probe whose spec is nil", e.Object, g.off(e.Time)),
			e.Time, e.Time, e)
	}
}

// statusWrite tells whether e writes a Probe's status.
func statusWrite(e timeline.Event) bool {
	_, resources := e.Field(fieldProbeResources)
	return e.Verb == timeline.VerbUpdateStatus || len(e.Conditions) > 0 || resources
}

// sortedRefs are a map's keys in order.
func sortedRefs[V any](m map[timeline.ObjectRef]V) []timeline.ObjectRef {
	out := make([]timeline.ObjectRef, 0, len(m))
	for ref := range m {
		out = append(out, ref)
	}
	slices.SortFunc(out, func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	return out
}
