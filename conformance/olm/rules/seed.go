package rules

import "regexp"

// What the rules expect, written here from seed 002 and its reading
// (decision 002, conformance/olm/README.md), never taken from the reference
// they judge (the judge does not borrow from the judged).

// Roles of the subjects the rules judge.
const (
	// RoleAggregator is the seed's Status Probe Operator, which keeps the
	// Probe's spec and status (002 §Example Workflow).
	RoleAggregator = "aggregator"
	// RoleOLM is OLM itself: the upgrade gate and the copier of an
	// OperatorCondition's conditions.
	RoleOLM = "olm"
	// RoleOperator is the operator OLM installed, which tells OLM whether
	// it may be upgraded: through its CRs' conditions, its Probe (manager
	// operator) or its OperatorCondition (002 §Motivation, §Proposal).
	RoleOperator = "operator"
)

// The actors whose processes the timeline shows starting and dying.
const (
	actorAggregator = "aggregator"
	actorGate       = "olm"
	actorCopier     = "olm-conditions"
	actorOperator   = "operator"
)

// The request the world makes of the operator (opcert's convention, the
// timeline contract in doc.go): the annotation on a CR that says its
// operand runs a critical process, 002 §Motivation's migration.
const (
	operandAnnotation = "opcert.io/operand"
	operandMigrating  = "Migrating"
)

// Readings of the Upgradeable expression (decision 002,
// conformance/olm/README.md).
const (
	// ReadingHolds: the expression states when the operator is
	// upgradeable; a CR blocks iff it evaluates to False.
	ReadingHolds = "holds"
	// ReadingBlocks: 002 §Test Plan read literally; a CR blocks iff the
	// expression evaluates to True.
	ReadingBlocks = "blocks"
)

// The objects the rules read (seed 002, timeline contract in doc.go).
const (
	groupOperators = "operators.coreos.com"
	groupOpcert    = "opcert.io"
	groupCRD       = "apiextensions.k8s.io"

	kindProbe             = "Probe"
	kindOperatorCondition = "OperatorCondition"
	kindUpgrade           = "Upgrade"
	kindCRD               = "CustomResourceDefinition"

	fieldSpec             = "spec"
	fieldStatus           = "status"
	fieldGeneration       = "metadata.generation"
	fieldAnnotations      = "metadata.annotations"
	fieldPlural           = "spec.names.plural"
	fieldKind             = "spec.names.kind"
	fieldNames            = "spec.names"
	fieldConditions       = "status.conditions"
	fieldProbeResources   = "status.probeResources"
	managerCRDAnnotations = "crdAnnotations"
	managerOperator       = "operator"
)

// The annotations of 002 §Opting into OLM Supported Conditions and the
// supported conditions of 002 §Design Details.
const (
	annotationPrefix = "olm.operatorframework.io/condition."
	nameUpgradeable  = "Upgradeable"
	nameImportant    = "Important"
)

// The Probe's conditions (002 §Example Workflow; decision 002,
// conformance/olm/README.md).
const (
	condUpgradeable = "Upgradeable"
	condProbeValid  = "ProbeValid"

	reasonNotUpgradeable = "NotUpgradeable"
	// messageNotUpgradeable is the seed's text, 002 §Example Workflow.
	messageNotUpgradeable = "The operator has communicated that the operator is not upgradeable"

	statusTrue    = "True"
	statusFalse   = "False"
	statusUnknown = "Unknown"
)

// The upgrade gate's phases and reasons (seed 002; docs/upstream.md for the
// OperatorCondition gate).
const (
	gateProbe             = "probe"
	gateOperatorCondition = "operatorcondition"

	phasePending   = "Pending"
	phaseSucceeded = "Succeeded"

	reasonOCNotUpgradeable = "OperatorConditionNotUpgradeable"
)

// reasonPattern is what Kubernetes asks of a condition's reason
// (docs/upstream.md, "Kubernetes conditions in general"): CamelCase, 1 to 1024
// characters.
var reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

const maxReason = 1024
