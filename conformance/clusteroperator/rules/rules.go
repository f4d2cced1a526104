package rules

import (
	"fmt"

	"github.com/opcert/opcert/conformance"
)

// Rules returns the CO rules judged against cfg, in ID order. The
// conventions on messages (Style) warn unless the judging is strict.
func Rules(cfg Config) []conformance.Rule {
	return []conformance.Rule{
		{ID: "CO-020", Section: "001 §Conditions, §Version reporting during an upgrade", Role: RoleOperator,
			Statement: "every condition the operator writes is valid: status True, False or Unknown; a reason, if any, CamelCase; lastTransitionTime moved when, and only when, the status changes, except Progressing's, set to the write's time in the write that completes an upgrade",
			Check:     cfg.validConditions},
		{ID: "CO-021", Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: "every condition message starts with a capital letter",
			Check:     cfg.capitalized},
		{ID: "CO-022", Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("a Progressing message is terse: at most %d words", maxProgressingWords),
			Check:     cfg.terseProgressing},
		{ID: "CO-023", Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: "an Available message is a single sentence without punctuation at its end",
			Check:     cfg.oneSentenceAvailable},
		{ID: "CO-024", Section: "001 §Conditions, §What should an operator report, honored by components 2", Role: RoleOperator,
			Statement: fmt.Sprintf("a True Failing or Degraded carries a detailed message, at least %d words, for an engineer or support person to triage (the verdict says which of the two each ClusterOperator uses)", minFailingWords),
			Check:     cfg.detailedFailing},
		{ID: "CO-025", Section: "001 §What should an operator report, honored by components 4", Role: RoleOperator,
			Statement: "Upgradeable=False carries a message that describes what must be fixed",
			Check:     cfg.upgradeableExplained},
	}
}
