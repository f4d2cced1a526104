package faithful

import (
	"fmt"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// checking is 000 §Proposal ¶2's challenge, put before each watched
// message: "Operator checking for stale status, the active operator will
// reset this message: <original message>".
const checking = "Operator checking for stale status, the active operator will reset this message: "

// notUpdated is 000 §Proposal ¶4's second text, for a condition whose
// status was status and message original before the challenge; the "20
// minutes" are the two waits together.
func notUpdated(total time.Duration, status configv1.ConditionStatus, original string) string {
	span := total.String()
	if total%time.Minute == 0 {
		span = fmt.Sprintf("%d minutes", total/time.Minute)
	}
	return fmt.Sprintf(`Operator has not updated this condition for more than %s, last known condition state was "%s", original message: %s`,
		span, status, original)
}

// isWatched tells whether 000 §Proposal ¶2's detector looks at a condition
// type: "Degraded, Available, Progressing, and Upgradeable"; Failing is
// Degraded's older name on a ClusterOperator.
func isWatched(t configv1.ClusterStatusConditionType) bool {
	switch t {
	case configv1.OperatorDegraded, "Failing", configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorUpgradeable:
		return true
	}
	return false
}
