package rules

import (
	"fmt"

	"github.com/opcert/opcert/judge"
)

// Rules returns the OLM rules judged against cfg, in ID order. OLM-005
// (a ProbeValid condition reporting wrong annotations) is gone: the seed
// names no such condition (README, the audit of seed 002).
func Rules(cfg Config) []judge.Rule {
	return []judge.Rule{
		{ID: "OLM-001", Section: "002 §Example Workflow; 002 §Test Plan; decision 002", Role: RoleAggregator,
			Statement: fmt.Sprintf("the Probe's Upgradeable condition is False iff a CR of a probe resource blocks under the reading %q, and True otherwise, %s", cfg.reading(), reconcile(cfg)),
			Check:     cfg.upgradeableReflects},
		{ID: "OLM-002", Section: "002 §Example Workflow", Role: RoleAggregator,
			Statement: fmt.Sprintf("status.probeResources lists exactly the CRs that block or have a True condition their Important expression names, once each, kind the CRD's plural or the CR's kind, reasons those True conditions and one reason for the failed Upgradeable expression, in any order, %s", reconcile(cfg)),
			Check:     cfg.probeResourcesListed},
		{ID: "OLM-003", Section: "002 §Example Workflow", Role: RoleAggregator,
			Statement: fmt.Sprintf("a Probe exists once an owned CRD carries an Upgradeable or Important annotation, and a Probe managed by crdAnnotations has spec.probeResources as the annotations say (one per annotated CRD, expressions verbatim, in any order), %s", reconcile(cfg)),
			Check:     cfg.specFollows},
		{ID: "OLM-004", Section: "002 §Writing to the Probe Resource Directly; 002 §Example Workflow", Role: RoleAggregator,
			Statement: "the aggregator never writes a Probe whose spec.manager is operator, nor the status of a Probe whose spec is nil",
			Check:     cfg.leftAlone},
		{ID: "OLM-006", Section: "002 §Design Details; 002 §Example Workflow; docs/upstream.md", Role: RoleOLM,
			Statement: fmt.Sprintf("an Upgrade never turns Succeeded while its gate's input blocks, turns Succeeded once it allows, and while blocked is Pending (the OperatorCondition gate with the upstream reason), %s", reconcile(cfg)),
			Check:     cfg.gateDecides},
		{ID: "OLM-007", Section: "002 §Design Details", Role: RoleAggregator,
			Statement: "every condition the aggregator writes on a Probe is valid: type CamelCase or prefix/CamelCase, status True, False or Unknown, a CamelCase reason, lastTransitionTime set and moved exactly when the status changes, observedGeneration, if set, a generation the Probe has had",
			Check:     cfg.validConditions},
		{ID: "OLM-008", Section: "docs/upstream.md", Role: RoleOLM,
			Statement: fmt.Sprintf("an OperatorCondition's status.conditions are its spec.conditions with observedGeneration its metadata.generation, %s", reconcile(cfg)),
			Check:     cfg.conditionsCopied},
		{ID: "OLM-009", Section: "002 §Example Workflow; decision 002", Role: RoleAggregator,
			Statement: "every Probe the aggregator writes is named after the operator's CSV, in its namespace (the CSV an Upgrade moves from, an OperatorCondition's): a Probe OLM's gate cannot find protects nothing",
			Check:     cfg.probeNamed},
		{ID: "OLM-010", Section: "002 §Example Workflow", Role: RoleAggregator, Style: true,
			Statement: fmt.Sprintf("the Probe's status is spelled as the seed's example: Upgradeable False with reason %s and the message %q, a blocking CR listed with kind its CRD's plural and the Upgradeable expression as written among its reasons", reasonNotUpgradeable, messageNotUpgradeable),
			Check:     cfg.seedSpellings},
		{ID: "OLM-011", Section: "002 §Motivation; 002 §Proposal, Story 2; decision 002", Role: RoleOperator,
			Statement: fmt.Sprintf("while the operand of one of its CRs runs a critical process (the world's request, annotation %s: %s), the operator says it is not upgradeable where the gate the upgrades ask reads it (a CR that blocks under its CRD's Upgradeable expression, its Probe with manager operator, or its OperatorCondition's spec.conditions), %s", operandAnnotation, operandMigrating, reconcile(cfg)),
			Check:     cfg.operatorSays},
	}
}

// reconcile says how soon a subject must reflect a change.
func reconcile(cfg Config) string {
	if cfg.allowance() == 0 {
		return "within the instant of each change"
	}
	return "within the reaction bound of " + cfg.allowance().String() + " after each change"
}
