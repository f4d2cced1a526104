package rules

import (
	"fmt"
	"slices"
	"time"
)

// What seed 000 says, written here from the seed and not imported from
// reference/stale (the judge does not borrow from the judged; a
// test fails if this package or its tests depend on reference/).

// 000 §Proposal ¶2: "Suppose the "lastTransitionTime" field is not updated
// for 10 minutes"; ¶4: "does not reset the message back to the original
// after 10 minutes"; §Test Plan: "Let's take a guess at 30s to start".
const (
	seedChallengeAfter = 10 * time.Minute
	seedUnknownAfter   = 10 * time.Minute
	seedAnswerBudget   = 30 * time.Second
)

// watchedTypes are the condition types the detector looks at. 000 §Proposal
// ¶2: "check the `status.[]conditions.lastTransitionTime` field for Degraded,
// Available, Progressing, and Upgradeable conditions"; Failing is Degraded's
// older name (decision 001, conformance/clusteroperator/README.md).
var watchedTypes = []string{"Degraded", "Failing", "Available", "Progressing", "Upgradeable"}

func isWatched(t string) bool { return slices.Contains(watchedTypes, t) }

// challengePrefix is the first text of 000 §Proposal ¶2, verbatim: "the
// controller will change the human-readable condition message to:
// `Operator checking for stale status, the active operator will reset this
// message: <original message>`".
const challengePrefix = "Operator checking for stale status, the active operator will reset this message: "

// staleMessage is the second text of 000 §Proposal ¶4, verbatim: "the
// controller will change the message again to: `Operator has not updated this
// condition for more than 20 minutes, last known condition state was
// "<False/True>", original message: <original message>`". The 20 minutes are
// the sum of the thresholds (decision 000, conformance/stale/README.md:
// thresholds are parameters): after is written in whole minutes when it is
// whole minutes, else as a Go duration.
func staleMessage(after time.Duration, lastStatus, original string) string {
	return fmt.Sprintf("Operator has not updated this condition for more than %s, last known condition state was %q, original message: %s",
		minutes(after), lastStatus, original)
}

func minutes(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return d.String()
}
