package rules

import (
	"slices"
	"strings"

	"github.com/opcert/opcert/sim/timeline"
)

// isCR tells whether o is a custom resource some probe resource may
// name: a namespaced object of a group that is none of the mechanism's
// own (world.apply).
func isCR(o timeline.ObjectRef) bool {
	return o.Group != "" && o.Group != groupOperators && o.Group != groupOpcert && o.Group != groupCRD && o.Namespace != ""
}

func isProbe(o timeline.ObjectRef) bool { return o.Kind == kindProbe && o.Group == groupOperators }

func isCRD(o timeline.ObjectRef) bool { return o.Kind == kindCRD && o.Group == groupCRD }

// Kleene evaluation of a probe resource's expressions over the CRs it
// names (002 §Example Workflow; decision 002, conformance/olm/README.md).

// blocker is a CR that blocks the upgrade and the expression it fails.
type blocker struct {
	kind, namespace, name, expr string
}

func (b blocker) String() string { return b.kind + " " + b.namespace + "/" + b.name + ": " + b.expr }

// owed is one CR the Probe's status.probeResources must list (002
// §Example Workflow): its CRD's plural and its own kind (either spells
// the entry's kind: the seed writes "foos" under "# ObjectReference"),
// the True conditions its Important expression names, and, when it
// blocks, the Upgradeable expression it fails (one more reason, whose
// spelling the seed only shows by example: OLM-010).
type owed struct {
	plural, kind, namespace, name string
	important                     []string
	blocks                        string // the expression failed, "" when it does not block
}

// matches tells whether a listed entry is o's: the same CR, its kind
// spelled either way.
func (o owed) matches(r resourceStatus) bool {
	return r.Namespace == o.namespace && r.Name == o.name && (r.Kind == o.plural || r.Kind == o.kind)
}

// want is what a Probe with spec should report over w's CRs: the CRs
// status.probeResources must list, in no order (002 gives none), the
// kinds (plural and kind) of the probe resources whose Important
// expression is not the seed's (not ||-only, or not parsing: what an
// aggregator lists for them is open), and the CRs that block.
type want struct {
	owed   []owed
	open   map[string]bool
	blocks []blocker
}

// aggregate is what a Probe with spec should report over w's CRs.
func (c Config) aggregate(w *world, spec *probeSpec) want {
	out := want{open: map[string]bool{}}
	for _, pr := range spec.ProbeResources {
		var up *program
		if pr.Upgradeable != "" {
			up, _ = compile(pr.Upgradeable) // one that does not parse blocks nothing
		}
		important, open := map[string]bool{}, false
		if pr.Important != "" {
			p, err := compile(pr.Important)
			if open = err != nil || p.onlyOr() != nil; !open {
				important = p.names()
			}
		}
		plural := w.plural(pr.Resource)
		if open {
			out.open[plural] = true
		}
		for _, ns := range w.crs {
			for ref, r := range ns {
				if w.crdOf(ref) != pr.Resource {
					continue
				}
				if open {
					out.open[ref.Kind] = true
				}
				o := owed{plural: plural, kind: ref.Kind, namespace: ref.Namespace, name: ref.Name}
				if up != nil && c.blocking(up.eval(func(t string) string { return r.status[t] })) {
					o.blocks = pr.Upgradeable
					out.blocks = append(out.blocks, blocker{plural, ref.Namespace, ref.Name, pr.Upgradeable})
				}
				for _, t := range r.order {
					if important[t] && r.status[t] == statusTrue {
						o.important = append(o.important, t)
					}
				}
				if !open && (o.blocks != "" || len(o.important) > 0) {
					out.owed = append(out.owed, o)
				}
			}
		}
	}
	sortOwed(out.owed)
	slices.SortFunc(out.blocks, func(a, b blocker) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// sortOwed orders CRs by kind, namespace and name, for stable messages.
func sortOwed(l []owed) {
	slices.SortFunc(l, func(a, b owed) int {
		return strings.Compare(a.plural+" "+a.namespace+"/"+a.name, b.plural+" "+b.namespace+"/"+b.name)
	})
}

// aggregated tells whether the aggregator owes p a status: it has a spec
// (002 §Example Workflow note: a nil spec is not aggregated) not managed
// by the operator (002 §Writing to the Probe Resource Directly).
func (p probe) aggregated() bool { return p.spec != nil && p.spec.Manager != managerOperator }
