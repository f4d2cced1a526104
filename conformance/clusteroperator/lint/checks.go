package lint

import "github.com/opcert/opcert/conformance"

// The seed's sections the checks enforce.
const (
	secHandles  = "001 §How ClusterVersionOperator handles ClusterOperator in release image"
	secContents = "001 §What should be the contents of ClusterOperator Custom Resource in /manifests"
	secVersion  = "001 §Version"
	secWhy      = "001 §Why I want ClusterOperator Custom Resource in /manifests"
)

// Check is one thing the lint looks for: its stable ID, how much a finding
// of it weighs, the section it enforces, and what it holds a payload to.
type Check struct {
	// ID is the check's stable ID ("LINT-007"), as findings and docs name it.
	ID string
	// Severity is how much a finding of the check weighs.
	Severity conformance.Severity
	// Section is the seed section the check enforces ("001 §Version").
	Section string
	// Statement says what the check holds a payload to, for the rules reference.
	Statement string
}

const (
	sevError = conformance.SeverityError
	sevWarn  = conformance.SeverityWarning
)

// The checks, by ID. A finding takes its severity and section from here.
var (
	unreadable = Check{"LINT-001", sevError, secHandles,
		"every swept file reads as YAML or JSON objects: the version operator applies them like kubectl create -f DIR and cannot load a file it cannot read"}
	incomplete = Check{"LINT-002", sevError, secHandles,
		"every manifest has apiVersion, kind and metadata.name, as kubectl create -f needs"}
	noName = Check{"LINT-003", sevError, secContents,
		"a ClusterOperator manifest has metadata.name: the name of the live instance the version operator waits for"}
	noOperatorVersion = Check{"LINT-004", sevError, secContents,
		"a ClusterOperator manifest declares status.versions[name=operator]: the version operator only respects the conditions of instances that report their version"}
	emptyVersion = Check{"LINT-005", sevError, secContents,
		"the operator version of a ClusterOperator manifest is not empty"}
	badVersions = Check{"LINT-006", sevError, secVersion,
		"every entry of status.versions has a name, and no name is given twice"}
	orderingTrap = Check{"LINT-007", sevError, secHandles,
		"a ClusterOperator manifest sorts after the Deployment of the operator that reports it: the sweep is in order, and the version operator waits at the ClusterOperator forever if its operator comes later"}
	badReportedBy = Check{"LINT-008", sevError, secHandles,
		"the annotation opcert.io/reported-by of a ClusterOperator manifest is <namespace>/<name> of a Deployment manifest in the payload"}
	noOperator = Check{"LINT-009", sevWarn, secHandles,
		"the operator that reports a ClusterOperator manifest is deployed by the payload (a Deployment of the same component, named <name> or <name>-operator, or named by opcert.io/reported-by); without it the version operator waits forever"}
	duplicate = Check{"LINT-010", sevError, secHandles,
		"no two ClusterOperator manifests have the same metadata.name: the version operator finds the one live instance by that name"}
	conditions = Check{"LINT-011", sevWarn, secContents,
		"a ClusterOperator manifest carries no status.conditions: only its name and versions are read; conditions come from the live instance its operator reports"}
	ignored = Check{"LINT-012", sevWarn, secHandles,
		"every file of the directory is swept: the version operator only deploys .yaml, .yml and .json files of the directory itself"}
	notClusterOperator = Check{"LINT-013", sevError, secContents,
		"a ClusterOperator manifest reads as a ClusterOperator (status.versions a list of {name, version})"}
	wrongAPIVersion = Check{"LINT-014", sevError, secContents,
		"a manifest of kind ClusterOperator is apiVersion config.openshift.io/v1: in another group or version it is not waited on but applied, and fails"}
	noClusterOperator = Check{"LINT-015", sevWarn, secWhy,
		"every component that deploys an operator has a ClusterOperator manifest: everyone installed by the version operator must include one"}
	namespaced = Check{"LINT-016", sevWarn, secHandles,
		"a ClusterOperator manifest has no metadata.namespace: ClusterOperators are cluster-scoped and found by metadata.name alone"}
)

// Checks lists every check in ID order, for help texts and documentation.
func Checks() []Check {
	return []Check{unreadable, incomplete, noName, noOperatorVersion, emptyVersion, badVersions, orderingTrap,
		badReportedBy, noOperator, duplicate, conditions, ignored, notClusterOperator, wrongAPIVersion,
		noClusterOperator, namespaced}
}

// at makes a finding of c.
func (c Check) at(file string, line int, message string) conformance.LintFinding {
	return conformance.LintFinding{ID: c.ID, Severity: c.Severity, File: file, Line: line, Message: message, Section: c.Section}
}
