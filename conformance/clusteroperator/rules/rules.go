package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
)

// Rules returns the CO rules judged against cfg, in ID order: the
// contract rules (CO-001 on), then the validity and conventions of
// conditions (CO-020 on). What seed 001 only recommends ("should", a
// convention) is a Style rule: it warns unless the judging is strict
// (README.md in this directory: the audit, clause by clause).
func Rules(cfg Config) []judge.Rule {
	return []judge.Rule{
		{ID: r001, Section: "001 §What should an operator report, honored by components 1", Role: RoleOperator,
			Statement: "a component does not report Available=True the first time until its installation, its first rollout, is complete: every operand at its version and ready, a DaemonSet on all its nodes",
			Check:     cfg.availableAfterInstall},
		{ID: r002, Section: "001 §Version reporting during an upgrade, §What should an operator report, honored by components 5", Role: RoleOperator,
			Statement: "versions[name=operator] moves to B only once no pod of the component runs another version and every operand spec asks B, and at installation once the first rollout is complete",
			Check:     cfg.versionAfterRollout},
		{ID: r003, Section: "001 §Version reporting during an upgrade, §What should an operator report, honored by components 5", Role: RoleOperator,
			Statement: fmt.Sprintf("once a rollout to B is complete, versions[name=operator] reads B %s and stays B while no new rollout begins", within(cfg.slack())),
			Check:     cfg.versionReported},
		{ID: r004, Section: "001 §Version reporting during an upgrade, §Conditions, §What should an operator report, honored by components 3", Role: RoleOperator,
			Statement: fmt.Sprintf("a rollout to B is reported Progressing=True with B in its message no later than %s after it began (%s, the seed's \"second or two\", and the reaction bound), and so until it is over", cfg.significant()+cfg.slack(), cfg.significant()),
			Check:     cfg.progressingDuringRollout},
		{ID: r005, Section: "001 §What should an operator report, honored by components 3", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("Progressing does not turn True while the component reconciles a known state: no rollout under way and no operand spec written since Progressing was at rest, %s either way", within(cfg.slack())),
			Check:     cfg.noProgressAtRest},
		{ID: r006, Section: "001 §Status", Role: RoleOperator, Style: true,
			Statement: "the status is atomic: the write that brings Progressing to rest after a rollout to B carries versions[name=operator]=B, and no write at rest names a version other than the one versions reports",
			Check:     cfg.atomicCompletion},
		{ID: r007, Section: "001 §Version reporting during an upgrade", Role: RoleOperator,
			Statement: "a write that moves versions[name=operator] with Progressing not True sets Progressing's lastTransitionTime to its own time",
			Check:     cfg.stampAtCompletion},
		{ID: r008, Section: "001 §Conditions, §What should an operator report, honored by components 2", Role: RoleOperator,
			Statement: fmt.Sprintf("a rollout that makes no progress for %s has Failing or Degraded True from then (%s) until it progresses or completes", cfg.stuck(), within(cfg.slack())),
			Check:     cfg.failingWhenStuck},
		{ID: r009, Section: "001 §What should an operator report, honored by components 4", Role: RoleOperator,
			Statement: fmt.Sprintf("while the administrator's ConfigMap X-admin holds an upgradeBlocker, Upgradeable is False; once cleared, Upgradeable is not False (each %s of the change)", within(cfg.slack())),
			Check:     cfg.upgradeableBlocked},
		{ID: r010, Section: "001 §Conditions", Role: RoleOperator,
			Statement: fmt.Sprintf("once installed, a component whose operands serve at full strength (any version) reports Available=True, %s of their coming to it, for as long as they do: False means an outage", within(cfg.slack())),
			Check:     cfg.availableWhileServing},
		{ID: r020, Section: "001 §Conditions, §Version reporting during an upgrade", Role: RoleOperator,
			Statement: "every condition the operator writes is valid: status True, False or Unknown; lastTransitionTime moved when, and only when, the status changes, except Progressing's, set to the write's time in the write that completes an upgrade",
			Check:     cfg.validConditions},
		{ID: r021, Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: "every condition message starts with a capital letter",
			Check:     cfg.capitalized},
		{ID: r022, Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("a Progressing message is terse: at most %d words", maxProgressingWords),
			Check:     cfg.terseProgressing},
		{ID: r023, Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: "an Available message is a single sentence without punctuation at its end",
			Check:     cfg.oneSentenceAvailable},
		{ID: r024, Section: "001 §Conditions, §What should an operator report, honored by components 2", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("a True Failing or Degraded carries a detailed message, at least %d words, for an engineer or support person to triage (the verdict says which of the two each ClusterOperator uses)", minFailingWords),
			Check:     cfg.detailedFailing},
		{ID: r025, Section: "001 §What should an operator report, honored by components 4", Role: RoleOperator, Style: true,
			Statement: "Upgradeable=False carries a message that describes what must be fixed",
			Check:     cfg.upgradeableExplained},
		{ID: r026, Section: "001 §Conditions", Role: RoleOperator, Style: true,
			Statement: "a condition's reason, if any, is CamelCase, as the godoc of ClusterOperator conditions describes it",
			Check:     cfg.camelCaseReasons},
	}
}

// within says how soon a slack lets something come: at once when it is
// zero.
func within(d time.Duration) string {
	if d == 0 {
		return "at the same instant"
	}
	return "within " + d.String()
}
