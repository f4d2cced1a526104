package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/payload"
)

// placeholder is the version the payload build substitutes (001 §What
// should be the contents of ClusterOperator Custom Resource in /manifests).
const placeholder = "0.0.1-snapshot"

// clusterOperator checks what the version operator reads of a
// ClusterOperator manifest: its name and its versions, and that it carries
// nothing else it would be expected to read.
func clusterOperator(co payload.ClusterOperator) []conformance.LintFinding {
	var out []conformance.LintFinding
	m := co.Manifest
	if co.Name == "" {
		out = append(out, noName.at(m.File, m.LineOf("metadata"),
			"the ClusterOperator manifest has no metadata.name: the version operator finds the live instance to wait for by it; add the name its operator reports under"))
	}
	if co.Namespace != "" {
		out = append(out, namespaced.at(m.File, m.LineOf("metadata", "namespace"), fmt.Sprintf(
			"ClusterOperator %s has metadata.namespace %q: ClusterOperators are cluster-scoped; remove it", coName(m), co.Namespace)))
	}
	if c, ok := co.Object.Object["status"].(map[string]any); ok {
		if list, _ := c["conditions"].([]any); len(list) > 0 {
			out = append(out, conditions.at(m.File, m.LineOf("status", "conditions"), fmt.Sprintf(
				"ClusterOperator %s carries status.conditions: the version operator reads only its name and versions, and waits for the conditions of the live instance; remove them", coName(m))))
		}
	}
	if co.Err != nil {
		return append(out, notClusterOperator.at(m.File, m.LineOf("status"), fmt.Sprintf(
			"ClusterOperator %s does not read as a ClusterOperator (%v): status.versions is a list of {name, version}", coName(m), co.Err)))
	}
	return append(out, versions(co)...)
}

// versions checks status.versions: an operator version, not empty, and
// every entry named once.
func versions(co payload.ClusterOperator) []conformance.LintFinding {
	var out []conformance.LintFinding
	m := co.Manifest
	seen := map[string]int{}
	operator := -1
	var names []string
	for i, v := range co.Versions {
		line := m.LineOf("status", "versions", strconv.Itoa(i))
		switch first, dup := seen[v.Name]; {
		case v.Name == "":
			out = append(out, badVersions.at(m.File, line, fmt.Sprintf(
				"entry %d of ClusterOperator %s's status.versions has no name: name it (operator, or the operand it versions)", i+1, coName(m))))
			continue
		case dup:
			out = append(out, badVersions.at(m.File, line, fmt.Sprintf(
				"ClusterOperator %s's status.versions names %s twice (entries %d and %d): keep one", coName(m), v.Name, first+1, i+1)))
			continue
		}
		seen[v.Name] = i
		names = append(names, v.Name)
		if v.Name == "operator" {
			operator = i
		}
	}
	switch {
	case len(co.Versions) == 0:
		out = append(out, noOperatorVersion.at(m.File, m.LineOf("status", "versions"), fmt.Sprintf(
			"ClusterOperator %s declares no expected versions: add status.versions with {name: operator, version: %q}; the version operator only respects the conditions of instances that report their version", coName(m), placeholder)))
	case operator < 0:
		has := "it names none"
		if len(names) > 0 {
			has = "it has " + strings.Join(names, ", ")
		}
		out = append(out, noOperatorVersion.at(m.File, m.LineOf("status", "versions"), fmt.Sprintf(
			"ClusterOperator %s's status.versions has no entry named operator (%s): add {name: operator, version: %q}; the version operator watches it to know the operator reached the new level", coName(m), has, placeholder)))
	case strings.TrimSpace(co.Versions[operator].Version) == "":
		out = append(out, emptyVersion.at(m.File, m.LineOf("status", "versions", strconv.Itoa(operator)), fmt.Sprintf(
			"ClusterOperator %s's operator version is empty: set it to %q, which the payload build replaces with the release's version", coName(m), placeholder)))
	}
	return out
}

// duplicates finds ClusterOperator manifests that share a name, at each
// one after the first.
func duplicates(cos []payload.ClusterOperator) []conformance.LintFinding {
	var out []conformance.LintFinding
	first := map[string]payload.Manifest{}
	for _, co := range cos {
		if co.Name == "" {
			continue
		}
		f, dup := first[co.Name]
		if !dup {
			first[co.Name] = co.Manifest
			continue
		}
		out = append(out, duplicate.at(co.File, co.LineOf("metadata", "name"), fmt.Sprintf(
			"ClusterOperator %s is declared again (first in %s:%d): one live instance cannot be waited on twice; keep one manifest",
			co.Name, f.File, f.LineOf("metadata", "name"))))
	}
	return out
}
