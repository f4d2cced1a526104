package rules

import (
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// OLM-009: the Probe the aggregator keeps is the operator's, named after its
// CSV in its namespace (002 §Example Workflow: "name: foo-operator.v1.0.0 #
// Same name as the CSV.", in the operator's namespace; decision 002,
// conformance/olm/README.md: a Probe the gate cannot find protects nothing).

// probeNamed is OLM-009.
func (c Config) probeNamed(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r009] }

func refsText(refs []timeline.ObjectRef) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.Namespace + "/" + r.Name
	}
	return strings.Join(parts, ", ")
}
