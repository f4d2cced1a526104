package rules

import "regexp"

// What the rules expect, written here from seed 004's table and the shared
// design (decision 004, conformance/stackable/README.md), never taken from the
// reference they judge (the judge does not borrow from the judged).

// The actor whose process the timeline shows starting and dying.
const actorOperator = "operator"

// The objects the rules read (doc.go, Timeline contract).
const (
	groupSamples = "samples.opcert.io"
	groupApps    = "apps"

	kindCluster     = "SampleCluster"
	kindStatefulSet = "StatefulSet"
	kindDeployment  = "Deployment"
	kindDaemonSet   = "DaemonSet"
	kindPod         = "Pod"

	fieldAnnotations    = "metadata.annotations"
	fieldSpec           = "spec"
	fieldConditions     = "status.conditions"
	fieldReplicas       = "spec.replicas"
	fieldTemplateLabels = "spec.template.metadata.labels"
	fieldStatus         = "status"
	fieldLabels         = "metadata.labels"
	fieldPhase          = "status.phase"

	// labelInstance names the SampleCluster a workload and its pods
	// belong to (the world's labels, conformance/stackable/README.md).
	labelInstance = "app.kubernetes.io/instance"
	// labelComponent names the role of a workload's pod template.
	labelComponent = "app.kubernetes.io/component"
)

// The operator-command annotation and its values (004 §Implementation
// details, Paused and Stopped rows).
const (
	annotationCommand = "operator-command"
	commandPaused     = "Paused"
	commandStopped    = "Stopped"
)

// Condition types: the table's, and operator-rs's name for Paused
// (docs/upstream.md; status/condition/mod.rs, ClusterConditionType).
const (
	condAvailable   = "Available"
	condProgressing = "Progressing"
	condDegraded    = "Degraded"
	condPaused      = "Paused"
	condStopped     = "Stopped"

	condReconciliationPaused = "ReconciliationPaused"
)

const (
	statusTrue    = "True"
	statusFalse   = "False"
	statusUnknown = "Unknown"
)

// Pod phases the table reads (004 §Implementation details).
const (
	phaseUnknown = "Unknown"
	phaseFailed  = "Failed"
)

// reasonPattern is what Kubernetes asks of a condition's reason
// (docs/upstream.md, "Kubernetes conditions in general"): CamelCase, 1 to 1024
// characters.
var reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

const maxReason = 1024
