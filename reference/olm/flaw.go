package olm

// AggregatorFlaw is a deliberate deviation of the aggregator from seed 002,
// for the broken subjects that prove the OLM rules can fail. "" is the
// reference.
type AggregatorFlaw string

// The aggregator's flaws, each a single deviation (flaw_test.go shows the
// case where it is the only difference).
const (
	// UnknownAsFalse lets an Unknown Upgradeable value block, under either
	// reading (breaks 002 §Test Plan: "not blocked if ... cannot be
	// calculated").
	UnknownAsFalse AggregatorFlaw = "unknown-as-false"
	// IgnoresNamespace skips the last target namespace in sorted order: its
	// CRs never count (breaks 002 §Example Workflow: "If a single CR
	// communicates that the operator is not upgradeable").
	IgnoresNamespace AggregatorFlaw = "ignores-namespace"
	// FrozenReasons keeps the reasons a CR was first listed with for as
	// long as it stays listed (breaks 002 §Example Workflow's
	// status.probeResources).
	FrozenReasons AggregatorFlaw = "frozen-reasons"
	// IgnoresManager aggregates into a Probe whose manager is operator
	// (breaks 002 §Writing to the Probe Resource Directly).
	IgnoresManager AggregatorFlaw = "ignores-manager"
	// FrozenSpec never updates the Probe's spec after creating it (breaks
	// 002 §Example Workflow: "OLM will override any changes to the probe's
	// spec").
	FrozenSpec AggregatorFlaw = "frozen-spec"
	// AllTrueImportant lists every True condition of a CR as a reason, not
	// only those the Important expression names (breaks 002 §Example
	// Workflow: "the Condition that did not map ... was not tracked").
	AllTrueImportant AggregatorFlaw = "all-true-important"
	// MovingTransition sets every condition's lastTransitionTime to now in
	// each write, whether its status changed or not (breaks the meaning of
	// lastTransitionTime, 002 §Design Details).
	MovingTransition AggregatorFlaw = "moving-transition"
	// NilSpecAggregates aggregates into a Probe whose spec is nil, with the
	// resources of the CRDs' annotations (breaks 002 §Example Workflow's
	// note: "If the probe's spec is nil, SPO will not create a pod").
	NilSpecAggregates AggregatorFlaw = "nil-spec-aggregates"
	// Late writes, at each reconcile, the status the reconcile before it
	// computed: one change behind.
	Late AggregatorFlaw = "late"
	// WaitsForCRs creates no Probe until a CR of an annotated CRD exists
	// (breaks 002 §Example Workflow: OLM creates the Probe for an operator
	// whose CRDs opt in; 002 §Test Plan's "no CRs exist" still has one:
	// OLM-003).
	WaitsForCRs AggregatorFlaw = "waits-for-crs"
	// NilSpecAsEmpty reads a Probe's nil spec as one with no probe
	// resources and writes its status (Upgradeable True, nothing listed)
	// (breaks 002 §Example Workflow's note: a nil spec is the operator's,
	// "SPO will not create a pod": OLM-004).
	NilSpecAsEmpty AggregatorFlaw = "nil-spec-as-empty"
	// MisnamedProbe keeps a Probe named after the operator rather than its CSV
	// ("foo-operator" for "foo-operator.v1.0.0"): right in every field, where
	// OLM's gate never looks (breaks 002 §Example Workflow: "Same name as the
	// CSV"; decision 002, conformance/olm/README.md: a Probe the gate cannot
	// find protects nothing: OLM-009).
	MisnamedProbe AggregatorFlaw = "misnamed-probe"
	// OwnTexts writes Upgradeable False with its own reason and message,
	// not the seed's example's (breaks only what 002 §Example Workflow
	// shows by example: the Style rule OLM-010 warns).
	OwnTexts AggregatorFlaw = "own-texts"
	// MisplacedProbe keeps the Probe, rightly named, in the first target
	// namespace other than the operator's (breaks 002 §Example Workflow:
	// the Probe is the CSV's, in its namespace: OLM-009).
	MisplacedProbe AggregatorFlaw = "misplaced-probe"
	// FrozenTransition keeps a condition's first lastTransitionTime when
	// its status changes (breaks 002 §Design Details: "Last time the
	// condition transitioned from one status to another": OLM-007).
	FrozenTransition AggregatorFlaw = "frozen-transition"
	// DropsImportant leaves the Important annotations out of the Probe's
	// spec (breaks 002 §Example Workflow: the spec's probe resources carry
	// both expressions: OLM-003).
	DropsImportant AggregatorFlaw = "drops-important"
)

var aggregatorFlaws = []struct {
	flaw AggregatorFlaw
	says string
}{
	{UnknownAsFalse, "an Upgradeable expression that cannot be calculated (Unknown) blocks the upgrade"},
	{IgnoresNamespace, "the CRs of the last target namespace (in sorted order) are never aggregated"},
	{FrozenReasons, "a CR's reasons are written once and never updated while it stays listed"},
	{IgnoresManager, "aggregates into a Probe whose spec.manager is operator"},
	{FrozenSpec, "never updates the Probe's spec after creating it"},
	{AllTrueImportant, "lists every True condition of a CR, not only those the Important expression names"},
	{MovingTransition, "moves every condition's lastTransitionTime to now on every write"},
	{NilSpecAggregates, "aggregates a Probe whose spec is nil, from the CRDs' annotations"},
	{Late, "writes the status only at the next reconcile after a change: one change behind"},
	{WaitsForCRs, "creates no Probe until a CR of an annotated CRD exists"},
	{NilSpecAsEmpty, "reads a Probe's nil spec as an empty one and writes its status"},
	{MisnamedProbe, "keeps a Probe named after the operator, not its CSV: the gate never finds it"},
	{OwnTexts, "writes Upgradeable False with its own reason and message, not the seed's example's"},
	{MisplacedProbe, "keeps the Probe, rightly named, in a target namespace, not the operator's"},
	{FrozenTransition, "keeps a condition's first lastTransitionTime when its status changes"},
	{DropsImportant, "leaves the Important annotations out of the Probe's spec"},
}

// AggregatorFlaws lists every aggregator flaw, in a stable order, for a
// registry of broken subjects.
func AggregatorFlaws() []AggregatorFlaw {
	out := make([]AggregatorFlaw, len(aggregatorFlaws))
	for i, f := range aggregatorFlaws {
		out[i] = f.flaw
	}
	return out
}

// Description is the flaw's one-line description, "" for the reference.
func (f AggregatorFlaw) Description() string {
	for _, d := range aggregatorFlaws {
		if d.flaw == f {
			return d.says
		}
	}
	return ""
}

// GateFlaw is a deliberate deviation of the upgrade gate from seed 002 and
// from what OLM shipped (docs/upstream.md, seed 002). "" is the reference.
type GateFlaw string

// The gate's flaws.
const (
	// IgnoresProbe never blocks an upgrade, whatever it reads (breaks 002
	// §Design Details: "When false, OLM will not upgrade the operator").
	IgnoresProbe GateFlaw = "ignores-probe"
	// IgnoresOverride, in the operatorcondition profile, reads the status
	// even when spec.overrides has an Upgradeable entry (breaks docs/upstream.md,
	// seed 002: an override decides alone).
	IgnoresOverride GateFlaw = "ignores-override"
	// IgnoresGeneration does not block on an Upgradeable condition whose
	// observedGeneration is not the OperatorCondition's generation (breaks
	// docs/upstream.md, seed 002: "is outdated").
	IgnoresGeneration GateFlaw = "ignores-generation"
	// UnknownBlocks blocks on an Upgradeable condition whose status is
	// Unknown, in both profiles (breaks 002 §Test Plan's "cannot be
	// calculated" and docs/upstream.md, seed 002: True or Unknown allow).
	UnknownBlocks GateFlaw = "unknown-blocks"
	// CopiesStatusOnly is OLM's copier copying an OperatorCondition's
	// condition only when its status changes, not when its message or reason
	// does with the generation: the status keeps the old observedGeneration,
	// and the gate reads it as outdated for ever (breaks docs/upstream.md,
	// seed 002: OLM copies spec.conditions to the status, stamping
	// observedGeneration).
	CopiesStatusOnly GateFlaw = "copies-status-only"
	// UnstampedCopy is OLM's copier copying an OperatorCondition's
	// conditions as the spec has them, without stamping observedGeneration
	// with the generation (breaks docs/upstream.md, seed 002: OLM-008).
	UnstampedCopy GateFlaw = "unstamped-copy"
	// CopiesWithoutMessage is OLM's copier copying a condition's type, status
	// and reason but not its message (breaks docs/upstream.md, seed 002: the
	// status conditions are the spec's: OLM-008).
	CopiesWithoutMessage GateFlaw = "copies-without-message"
)

var gateFlaws = []struct {
	flaw GateFlaw
	says string
}{
	{IgnoresProbe, "never blocks an upgrade"},
	{IgnoresOverride, "operatorcondition profile: reads the status even when an Upgradeable override exists"},
	{IgnoresGeneration, "does not block on an Upgradeable condition with a stale observedGeneration"},
	{UnknownBlocks, "an Upgradeable condition whose status is Unknown blocks the upgrade"},
	{CopiesStatusOnly, "the OperatorCondition copier copies a condition only when its status changes, leaving the old observedGeneration"},
	{UnstampedCopy, "the OperatorCondition copier does not stamp observedGeneration with the generation"},
	{CopiesWithoutMessage, "the OperatorCondition copier copies a condition without its message"},
}

// GateFlaws lists every gate flaw, in a stable order.
func GateFlaws() []GateFlaw {
	out := make([]GateFlaw, len(gateFlaws))
	for i, f := range gateFlaws {
		out[i] = f.flaw
	}
	return out
}

// Description is the flaw's one-line description, "" for the reference.
func (f GateFlaw) Description() string {
	for _, d := range gateFlaws {
		if d.flaw == f {
			return d.says
		}
	}
	return ""
}
