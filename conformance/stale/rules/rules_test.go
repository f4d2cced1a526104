package rules

import (
	"strings"
	"testing"
	"time"
)

// The seed's texts and list, as 000 §Proposal prints them.
func TestSeedTexts(t *testing.T) {
	if got, want := challengePrefix+"All is well", "Operator checking for stale status, the active operator will reset this message: All is well"; got != want {
		t.Errorf("challenge %q, want %q", got, want)
	}
	if got, want := staleMessage(20*time.Minute, "True", "All is well"),
		`Operator has not updated this condition for more than 20 minutes, last known condition state was "True", original message: All is well`; got != want {
		t.Errorf("Unknown text %q, want %q", got, want)
	}
	for _, typ := range []string{"Degraded", "Failing", "Available", "Progressing", "Upgradeable"} {
		if !isWatched(typ) {
			t.Errorf("%s is not watched", typ)
		}
	}
	if isWatched("EvaluationConditionsDetected") {
		t.Error("EvaluationConditionsDetected is watched")
	}
	if got, want := DefaultConfig(), (Config{ChallengeAfter: 10 * time.Minute, UnknownAfter: 10 * time.Minute, AnswerBudget: 30 * time.Second}); got != want {
		t.Errorf("DefaultConfig() = %+v, want %+v", got, want)
	}
}

// The statements name the reaction bound the rules judge with.
func TestStatementsNameTheBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.AnswerBudget = 10 * time.Second
	for _, id := range []string{"STALE-002", "STALE-004", "STALE-007"} {
		if s := ruleByID(t, cfg, id).Statement; !strings.Contains(s, "(10s)") {
			t.Errorf("%s: %q does not name the 10s bound", id, s)
		}
	}
}
