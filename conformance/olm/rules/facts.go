package rules

import (
	"slices"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// storyKey is the key of the replayed timeline among a judging's facts:
// every rule reads the same story.
type storyKey struct{}

func storyOf(j *conformance.Judging) *story {
	return conformance.Facts(j, storyKey{}, readStory)
}

// isCR tells whether o is a custom resource some probe resource may
// name: a namespaced object of a group that is none of the mechanism's
// own (world.apply).
func isCR(o timeline.ObjectRef) bool {
	return o.Group != "" && o.Group != groupOperators && o.Group != groupOpcert && o.Group != groupCRD && o.Namespace != ""
}

func isProbe(o timeline.ObjectRef) bool { return o.Kind == kindProbe && o.Group == groupOperators }

func isCRD(o timeline.ObjectRef) bool { return o.Kind == kindCRD && o.Group == groupCRD }

// refs are the objects of the timeline's writes that match, in order of
// their refs.
func (s *story) refs(match func(timeline.ObjectRef) bool) []timeline.ObjectRef {
	seen := map[timeline.ObjectRef]bool{}
	var out []timeline.ObjectRef
	for _, e := range s.events {
		if e.IsWrite() && match(e.Object) && !seen[e.Object] {
			seen[e.Object] = true
			out = append(out, e.Object)
		}
	}
	slices.SortFunc(out, func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Kleene evaluation of a probe resource's expressions over the CRs it
// names (002 §Example Workflow; DESIGN 002).

// blocker is a CR that blocks the upgrade and the expression it fails.
type blocker struct {
	kind, namespace, name, expr string
}

func (b blocker) String() string { return b.kind + " " + b.namespace + "/" + b.name + ": " + b.expr }

// aggregate is what a Probe with spec should report over w's CRs: its
// status.probeResources, in probe resource order, then namespace and
// name, and the CRs that block.
func (c Config) aggregate(w *world, spec *probeSpec) ([]resourceStatus, []blocker) {
	var list []resourceStatus
	var blocks []blocker
	for _, pr := range spec.ProbeResources {
		var up *program
		if pr.Upgradeable != "" {
			up, _ = compile(pr.Upgradeable) // one that does not parse blocks nothing
		}
		important := map[string]bool{}
		if pr.Important != "" {
			if p, err := compile(pr.Important); err == nil && p.onlyOr() == nil {
				important = p.names()
			}
		}
		var crs []cr
		for _, ns := range w.crs {
			for ref, r := range ns {
				if w.crdOf(ref) == pr.Resource {
					crs = append(crs, r)
				}
			}
		}
		slices.SortFunc(crs, func(a, b cr) int {
			if n := strings.Compare(a.ref.Namespace, b.ref.Namespace); n != 0 {
				return n
			}
			return strings.Compare(a.ref.Name, b.ref.Name)
		})
		kind := w.plural(pr.Resource)
		for _, r := range crs {
			var reasons []string
			if up != nil && c.blocking(up.eval(func(t string) string { return r.status[t] })) {
				reasons = append(reasons, pr.Upgradeable)
				blocks = append(blocks, blocker{kind, r.ref.Namespace, r.ref.Name, pr.Upgradeable})
			}
			for _, t := range r.order {
				if important[t] && r.status[t] == statusTrue {
					reasons = append(reasons, t)
				}
			}
			if len(reasons) > 0 {
				list = append(list, resourceStatus{Kind: kind, Name: r.ref.Name, Namespace: r.ref.Namespace, Reasons: reasons})
			}
		}
	}
	return list, blocks
}

// aggregated tells whether the aggregator owes p a status: it has a spec
// (002 §Example Workflow note: a nil spec is not aggregated) not managed
// by the operator (002 §Writing to the Probe Resource Directly).
func (p probe) aggregated() bool { return p.spec != nil && p.spec.Manager != managerOperator }
