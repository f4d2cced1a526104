package lint

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/payload"
)

// Lint checks a payload as the version operator will sweep it. It reads
// only p; the findings are sorted by file and line.
func Lint(p *payload.Payload) []conformance.LintFinding {
	var out []conformance.LintFinding
	for _, ig := range p.Ignored {
		if !ig.Known {
			out = append(out, ignored.at(ig.Name, 0, "not swept: "+ig.Reason))
		}
	}
	for _, pr := range p.Problems {
		out = append(out, unreadable.at(pr.File, pr.Line, pr.Message+"; the version operator cannot load a payload with a file it cannot read"))
	}
	for _, m := range p.Manifests {
		out = append(out, manifest(m)...)
	}
	cos := p.ClusterOperators()
	for _, co := range cos {
		out = append(out, clusterOperator(co)...)
		out = append(out, operator(p, co.Manifest)...)
	}
	out = append(out, duplicates(cos)...)
	out = append(out, unreported(p, cos)...)
	conformance.SortFindings(out)
	return out
}

// manifest checks what every manifest needs to be applied at all.
func manifest(m payload.Manifest) []conformance.LintFinding {
	if m.Kind == "ClusterOperator" && !m.IsClusterOperator() {
		return []conformance.LintFinding{wrongAPIVersion.at(m.File, m.LineOf("apiVersion"), fmt.Sprintf(
			"kind ClusterOperator has apiVersion %q: the version operator waits only on %s ClusterOperators; write apiVersion: %s",
			m.APIVersion, configv1.GroupVersion, configv1.GroupVersion))}
	}
	var missing []string
	if m.APIVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if m.Kind == "" {
		missing = append(missing, "kind")
	}
	if m.Name == "" && !m.IsClusterOperator() { // a ClusterOperator's name is LINT-003
		missing = append(missing, "metadata.name")
	}
	if len(missing) == 0 {
		return nil
	}
	return []conformance.LintFinding{incomplete.at(m.File, m.Line, fmt.Sprintf(
		"the manifest (%s) has no %s: the version operator cannot apply it; add %s",
		describe(m), strings.Join(missing, ", "), strings.Join(missing, " and ")))}
}

// describe names a manifest in a message by what it has.
func describe(m payload.Manifest) string {
	switch {
	case m.Kind != "" && m.Name != "":
		return m.Kind + " " + ref(m)
	case m.Kind != "":
		return "a " + m.Kind
	}
	return fmt.Sprintf("object %d of the file", m.Index+1)
}

// ref names an object: namespace/name, or its name when cluster-scoped.
func ref(m payload.Manifest) string {
	if m.Namespace != "" {
		return m.Namespace + "/" + m.Name
	}
	return m.Name
}

// coName names a ClusterOperator manifest in a message, even without a
// name.
func coName(m payload.Manifest) string {
	if m.Name == "" {
		return "(no name)"
	}
	return m.Name
}
