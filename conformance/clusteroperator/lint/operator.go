package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/payload"
	"github.com/opcert/opcert/visible"
)

// operator checks that the operator reporting co is deployed before it:
// "if the ClusterOperator Custom Resource exists before the deployment for
// the operator that is supposed to report the Custom Resource,
// ClusterVersionOperator will be stuck waiting" (001 §How
// ClusterVersionOperator handles ClusterOperator in release image, NOTE).
func operator(p *payload.Payload, co payload.Manifest) []conformance.LintFinding {
	at := co.LineOf("metadata", "annotations", payload.ReportedByAnnotation)
	want, named, err := payload.ReportedBy(co)
	if err != nil {
		return []conformance.LintFinding{badReportedBy.at(co.File, at, fmt.Sprintf(
			"ClusterOperator %s: %v: write the namespace and name of its operator's Deployment", coName(co), err))}
	}
	d, found := p.OperatorOf(co)
	switch {
	case !found && named:
		return []conformance.LintFinding{badReportedBy.at(co.File, at, fmt.Sprintf(
			"ClusterOperator %s is reported by Deployment %s, which is not in the payload: the version operator would wait for it forever; add the Deployment before it, or correct the annotation", coName(co), want))}
	case !found:
		return []conformance.LintFinding{noOperator.at(co.File, co.Line, fmt.Sprintf(
			"ClusterOperator %s: no Deployment of its operator in the payload (%s): unless something else deploys it first, the version operator waits forever; add it before this manifest, or name it with %s: <namespace>/<name>",
			coName(co), searched(co), payload.ReportedByAnnotation))}
	}
	// A payload may hold variants of one Deployment (one per cluster
	// profile, each applied only where its annotations include it): the
	// trap is set if any of them comes later.
	// The variants are in sweep order: the first after co is found by
	// bisection.
	vs := p.Variants(payload.Ref{Namespace: d.Namespace, Name: d.Name})
	later := sort.Search(len(vs), func(i int) bool { return vs[i].Seq > co.Seq })
	if later == len(vs) {
		return nil
	}
	v := vs[later]
	return []conformance.LintFinding{orderingTrap.at(co.File, co.Line, fmt.Sprintf(
		"ClusterOperator %s (%s) comes before Deployment %s (%s), the operator that reports it: the version operator sweeps in order and waits at the ClusterOperator forever, never reaching its operator; rename the files so that the Deployment sorts first",
		coName(co), where(co), ref(v), where(v)))}
}

// searched says where OperatorOf looked for a ClusterOperator's operator.
func searched(co payload.Manifest) string {
	names := "none named " + co.Name + " or " + co.Name + "-operator"
	if co.Name == "" {
		names = "and no name to look for"
	}
	if co.Component == "" {
		return names
	}
	return fmt.Sprintf("none in component %s, %s", co.Component, names)
}

// where places a manifest for a message: its file and line, and which of
// the file's objects it is when there are several. A file name that does
// not print as itself is quoted.
func where(m payload.Manifest) string {
	if m.Index > 0 {
		return fmt.Sprintf("%s:%d, object %d of the file", visible.Quote(m.File), m.Line, m.Index+1)
	}
	return fmt.Sprintf("%s:%d", visible.Quote(m.File), m.Line)
}

// unreported finds components that deploy something but declare no
// ClusterOperator: "Everyone installed by the ClusterVersionOperator must
// include the ClusterOperator Custom Resource in /manifests" (001 §Why I
// want ClusterOperator Custom Resource in /manifests). A Deployment some
// ClusterOperator manifest has as its operator is accounted for (with its
// variants: same namespace and name), wherever it is; one in a component
// with a ClusterOperator manifest too (an operator may deploy helpers
// beside itself). The finding is at the component's first such Deployment,
// or at each one that has no component.
func unreported(p *payload.Payload, cos []payload.ClusterOperator) []conformance.LintFinding {
	reported := map[string]bool{}
	for _, co := range cos {
		if d, ok := p.OperatorOf(co.Manifest); ok {
			reported[d.Namespace+"/"+d.Name] = true
		}
	}
	withClusterOperator := map[string]bool{} // components, by payload.ComponentOf
	for _, co := range cos {
		if c, ok := payload.ComponentOf(co.Manifest); ok {
			withClusterOperator[c] = true
		}
	}
	var out []conformance.LintFinding
	told := map[string]bool{} // components
	for _, d := range p.Manifests {
		c, inComponent := payload.ComponentOf(d)
		if !d.IsDeployment() || reported[d.Namespace+"/"+d.Name] || (inComponent && (withClusterOperator[c] || told[c])) {
			continue
		}
		if inComponent {
			told[c] = true
		}
		what := "Deployment " + ref(d) + " is reported by no ClusterOperator manifest"
		switch {
		case d.Component != "":
			what = fmt.Sprintf("component %s deploys %s but has no ClusterOperator manifest", d.Component, ref(d))
		case !strings.HasPrefix(d.File, "0000_"):
			what = fmt.Sprintf("the files not named 0000_... (one component once the payload is built) deploy %s but hold no ClusterOperator manifest", ref(d))
		}
		out = append(out, noClusterOperator.at(d.File, d.Line, what+
			": if it is an operator, add a ClusterOperator manifest (after this file) with its name and status.versions operator, or annotate its ClusterOperator manifest with "+
			payload.ReportedByAnnotation+": "+ref(d)))
	}
	return out
}
