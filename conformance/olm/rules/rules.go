package rules

import (
	"fmt"

	"github.com/opcert/opcert/conformance"
)

// Rules returns the OLM rules judged against cfg, in ID order.
func Rules(cfg Config) []conformance.Rule {
	return []conformance.Rule{
		{ID: "OLM-001", Section: "002 §Example Workflow; 002 §Test Plan; DESIGN 002", Role: RoleAggregator,
			Statement: fmt.Sprintf("the Probe's Upgradeable condition is False (reason %s, the seed's message) iff a CR of a probe resource blocks under the reading %q, and True otherwise, %s", reasonNotUpgradeable, cfg.reading(), reconcile(cfg)),
			Check:     cfg.upgradeableReflects},
		{ID: "OLM-002", Section: "002 §Example Workflow", Role: RoleAggregator,
			Statement: fmt.Sprintf("status.probeResources lists exactly the CRs with reasons (kind the CRD's plural), each with the failing Upgradeable expression as written, then the True conditions the Important expression names in the CR's order, %s", reconcile(cfg)),
			Check:     cfg.probeResourcesListed},
		{ID: "OLM-003", Section: "002 §Example Workflow", Role: RoleAggregator,
			Statement: fmt.Sprintf("a Probe exists once an owned CRD carries an Upgradeable or Important annotation, and a Probe managed by crdAnnotations has spec.probeResources as the annotations say (one per annotated CRD, in name order, expressions verbatim), %s", reconcile(cfg)),
			Check:     cfg.specFollows},
		{ID: "OLM-004", Section: "002 §Writing to the Probe Resource Directly; 002 §Example Workflow", Role: RoleAggregator,
			Statement: "the aggregator never writes a Probe whose spec.manager is operator, nor the status of a Probe whose spec is nil",
			Check:     cfg.leftAlone},
		{ID: "OLM-005", Section: "002 §Opting into OLM Supported Conditions; DESIGN 002", Role: RoleAggregator,
			Statement: fmt.Sprintf("a condition annotation that does not parse, an Important expression using && or !, or an unsupported condition name makes the Probe's ProbeValid False with a message naming the CRD and the annotation, and ProbeValid is not False when every annotation is right, %s", reconcile(cfg)),
			Check:     cfg.invalidReported},
		{ID: "OLM-006", Section: "002 §Design Details; 002 §Example Workflow; UPSTREAM", Role: RoleOLM,
			Statement: fmt.Sprintf("an Upgrade never turns Succeeded while its gate's input blocks, turns Succeeded once it allows, and while blocked is Pending with a message naming each blocking CR the Probe lists, %s", reconcile(cfg)),
			Check:     cfg.gateDecides},
		{ID: "OLM-007", Section: "002 §Design Details", Role: RoleAggregator,
			Statement: "every condition the aggregator writes on a Probe is valid: type CamelCase or prefix/CamelCase, status True, False or Unknown, a CamelCase reason, lastTransitionTime set and moved exactly when the status changes, observedGeneration the Probe's generation",
			Check:     cfg.validConditions},
		{ID: "OLM-008", Section: "UPSTREAM", Role: RoleOLM,
			Statement: fmt.Sprintf("an OperatorCondition's status.conditions are its spec.conditions with observedGeneration its metadata.generation, %s", reconcile(cfg)),
			Check:     cfg.conditionsCopied},
	}
}

// reconcile says how soon a subject must reflect a change.
func reconcile(cfg Config) string {
	if cfg.Tolerance == 0 {
		return "within the instant of each change"
	}
	return "within " + cfg.Tolerance.String() + " of each change"
}
