package rules

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the Probe's status the aggregator keeps (002 §Example
// Workflow): OLM-001 (Upgradeable), OLM-002 (probeResources), OLM-005
// (ProbeValid).

// statusWatch judges an output of Probe ref that the aggregator derives
// from the CRs, the CRDs and the Probe's spec.
func statusWatch(s *story, ref timeline.ObjectRef, check func(w *world) (string, bool)) watch {
	return watch{
		actor: actorAggregator,
		input: func(i int, e timeline.Event) bool {
			if !e.IsWrite() {
				return false
			}
			if e.Object == ref {
				_, spec := field(e, fieldSpec)
				return e.Role != RoleAggregator || spec || e.Verb == timeline.VerbCreate || e.Verb == timeline.VerbDelete
			}
			return isCRD(e.Object) || isCR(e.Object) && s.after[i].served(e.Object.Group)
		},
		output: func(_ int, e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Role == RoleAggregator },
		check:  check,
	}
}

// upgradeableReflects is OLM-001.
func (c Config) upgradeableReflects(j *conformance.Judging) conformance.Verdict {
	s := storyOf(j)
	var g conformance.Judgement
	for _, ref := range s.refs(isProbe) {
		c.judgeIntervals(j, s, statusWatch(s, ref, func(w *world) (string, bool) {
			p, ok := w.probes[ref]
			if !ok || !p.aggregated() {
				return "", false
			}
			_, blocks := c.aggregate(w, p.spec)
			got, has := p.conds[condUpgradeable]
			seen := "absent"
			if has {
				seen = fmt.Sprintf("%s/%s %q", got.Status, got.Reason, got.Message)
			}
			if len(blocks) > 0 {
				if !has || got.Status != statusFalse || got.Reason != reasonNotUpgradeable || got.Message != messageNotUpgradeable {
					return fmt.Sprintf("%s: Upgradeable is %s, want False/%s %q: %s blocks", ref, seen, reasonNotUpgradeable,
						messageNotUpgradeable, blocks[0]), true
				}
				return "", true
			}
			if !has || got.Status != statusTrue {
				return fmt.Sprintf("%s: Upgradeable is %s, want True: no CR blocks under the reading %q", ref, seen, c.reading()), true
			}
			return "", true
		}), &g)
	}
	return g.Verdict("no Probe with a spec the aggregator keeps")
}

// reading is the reading in force, by name.
func (c Config) reading() string {
	if c.Reading == ReadingBlocks {
		return ReadingBlocks
	}
	return ReadingHolds
}

// probeResourcesListed is OLM-002.
func (c Config) probeResourcesListed(j *conformance.Judging) conformance.Verdict {
	s := storyOf(j)
	var g conformance.Judgement
	for _, ref := range s.refs(isProbe) {
		c.judgeIntervals(j, s, statusWatch(s, ref, func(w *world) (string, bool) {
			p, ok := w.probes[ref]
			if !ok || !p.aggregated() {
				return "", false
			}
			want, _ := c.aggregate(w, p.spec)
			if !sameResources(p.resources, want) {
				return fmt.Sprintf("%s: status.probeResources is %s, want %s", ref, listText(p.resources), listText(want)), true
			}
			return "", true
		}), &g)
	}
	return g.Verdict("no Probe with a spec the aggregator keeps")
}

// sameResources compares two lists, an empty list of reasons and none
// alike.
func sameResources(a, b []resourceStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Kind != y.Kind || x.Name != y.Name || x.Namespace != y.Namespace ||
			!(len(x.Reasons) == 0 && len(y.Reasons) == 0 || reflect.DeepEqual(x.Reasons, y.Reasons)) {
			return false
		}
	}
	return true
}

// listText writes a probeResources list as "[foos default/foo-example
// (!Migrating, UnhealthyDatabase)]".
func listText(l []resourceStatus) string {
	parts := make([]string, 0, len(l))
	for _, r := range l {
		parts = append(parts, fmt.Sprintf("%s %s/%s (%s)", r.Kind, r.Namespace, r.Name, strings.Join(r.Reasons, ", ")))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// invalidReported is OLM-005.
func (c Config) invalidReported(j *conformance.Judging) conformance.Verdict {
	s := storyOf(j)
	var g conformance.Judgement
	for _, ref := range s.refs(isProbe) {
		c.judgeIntervals(j, s, statusWatch(s, ref, func(w *world) (string, bool) {
			p, ok := w.probes[ref]
			if !ok || p.spec == nil || p.spec.Manager != managerCRDAnnotations {
				return "", false
			}
			got, has := p.conds[condProbeValid]
			bad := invalidAnnotations(w)
			if len(bad) == 0 {
				if has && got.Status == statusFalse {
					return fmt.Sprintf("%s: ProbeValid is False (%q) though every condition annotation parses", ref, got.Message), true
				}
				return "", true
			}
			if !has || got.Status != statusFalse {
				return fmt.Sprintf("%s: ProbeValid is not False though %s", ref, bad[0].why), true
			}
			for _, b := range bad {
				if !strings.Contains(got.Message, b.crd) || !strings.Contains(got.Message, b.key) {
					return fmt.Sprintf("%s: ProbeValid's message %q does not name %s and %s (%s)", ref, got.Message, b.crd, b.key, b.why), true
				}
			}
			return "", true
		}), &g)
	}
	return g.Verdict("no Probe managed by crdAnnotations")
}

// badAnnotation is a condition annotation that is wrong.
type badAnnotation struct{ crd, key, why string }

// invalidAnnotations are w's wrong condition annotations, by CRD and key.
func invalidAnnotations(w *world) []badAnnotation {
	var out []badAnnotation
	for _, name := range slices.Sorted(maps.Keys(w.crds)) {
		ann := w.crds[name].conditionAnnotations()
		for _, key := range slices.Sorted(maps.Keys(ann)) {
			if why := annotationProblem(key, ann[key]); why != "" {
				out = append(out, badAnnotation{name, key, name + " " + why})
			}
		}
	}
	return out
}
