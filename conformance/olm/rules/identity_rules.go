package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// OLM-009: the Probe the aggregator keeps is the operator's, named after
// its CSV in its namespace (002 §Example Workflow: "name:
// foo-operator.v1.0.0 # Same name as the CSV.", in the operator's
// namespace; DESIGN 002: a Probe the gate cannot find protects nothing).

// csvs are the operator's CSVs the timeline names, as the Probe's
// reference they ask for: the CSV an Upgrade moves from (spec.from, in the
// Upgrade's namespace) and an OperatorCondition's (named after its CSV,
// UPSTREAM).
func (s *story) csvs() map[timeline.ObjectRef]bool {
	out := map[timeline.ObjectRef]bool{}
	for i, e := range s.events {
		if !e.IsWrite() || e.Verb == timeline.VerbDelete {
			continue
		}
		o := e.Object
		switch {
		case o.Kind == kindUpgrade && o.Group == groupOpcert:
			if from := s.after[i].upgrades[o].spec.From; from != "" {
				out[timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: o.Namespace, Name: from}] = true
			}
		case o.Kind == kindOperatorCondition && o.Group == groupOperators:
			out[timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: o.Namespace, Name: o.Name}] = true
		}
	}
	return out
}

// probeNamed is OLM-009.
func (c Config) probeNamed(j *judge.Judging) judge.Verdict {
	s := storyOf(j)
	named := s.csvs()
	if len(named) == 0 {
		return judge.Verdict{Status: reports.Skip, Message: "the timeline names no CSV of the operator (no Upgrade, no OperatorCondition)"}
	}
	want := slices.SortedFunc(maps.Keys(named), func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	var g judge.Findings
	for _, e := range s.events {
		if !e.IsWrite() || !isProbe(e.Object) || e.Role != RoleAggregator {
			continue
		}
		g.Judged++
		if !named[e.Object] {
			g.FailIn(fmt.Sprintf("%s at %s: the aggregator wrote (%s) a Probe that is not named after the operator's CSV in its namespace (%s): OLM's gate looks for the Probe there",
				e.Object, j.Offset(e.Time), e.Verb, refsText(want)), e.Time, e.Time, e)
		}
	}
	return g.Verdict("the aggregator wrote no Probe")
}

func refsText(refs []timeline.ObjectRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.Namespace + "/" + r.Name
	}
	return strings.Join(parts, ", ")
}
