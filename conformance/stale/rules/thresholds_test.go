package rules

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// The statements name the thresholds the rules judge with, not the seed's
// defaults: under --challenge-after 5m --unknown-after 7m --answer-budget
// 10s, and at a time scale of 0.01 (6s, 6s, 30s).
func TestStatementsStateTheThresholdsInForce(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want map[string]string
	}{
		{"flags", Config{ChallengeAfter: 5 * time.Minute, UnknownAfter: 7 * time.Minute, AnswerBudget: 10 * time.Second},
			map[string]string{"STALE-001": "(5m)", "STALE-002": "(5m) is challenged then, within the reaction bound (10s)",
				"STALE-004": "unanswered for 7m more is followed then, within the reaction bound (10s)", "STALE-005": "(7m)", "STALE-007": "(10s)"}},
		{"time scale 0.01", Config{ChallengeAfter: 6 * time.Second, UnknownAfter: 6 * time.Second, AnswerBudget: 30 * time.Second},
			map[string]string{"STALE-001": "(6s)", "STALE-002": "(6s)", "STALE-004": "for 6s more", "STALE-005": "(6s)"}},
		{"hours", Config{ChallengeAfter: time.Hour, UnknownAfter: 90 * time.Minute, AnswerBudget: time.Minute},
			map[string]string{"STALE-001": "(1h)", "STALE-004": "for 1h30m more", "STALE-007": "(1m0s)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range Rules(tc.cfg) {
				if want, ok := tc.want[r.ID]; ok && !strings.Contains(r.Statement, want) {
					t.Errorf("%s says %q, want %q in it", r.ID, r.Statement, want)
				}
				if strings.Contains(r.Statement, "10m") || strings.Contains(r.Statement, "10 more minutes") {
					t.Errorf("%s says %q: the seed's 10 minutes are not in force", r.ID, r.Statement)
				}
			}
		})
	}
}

// A run at a time scale plays the world's 20 minutes in less: its mark
// states the world's silence (Config.Silence, set by the mechanism's
// Scaled), as the scenario's expectations do, and a mark stating the
// scaled one is a paraphrase of the seed's text.
func TestScaledMarkStatesTheWorldsSilence(t *testing.T) {
	cfg := Config{ChallengeAfter: 6 * time.Second, UnknownAfter: 6 * time.Second, AnswerBudget: 30 * time.Second,
		Silence: 20 * time.Minute, Tolerance: time.Second}
	for _, tc := range []struct {
		stated time.Duration
		want   reports.Status
	}{{20 * time.Minute, reports.Pass}, {12 * time.Second, reports.Fail}} {
		tl := newTimeline().created("0s").kill("1s").challenge("6s").detector("12s", staleMark(tc.stated, at("12s")))
		v := ruleByID(t, cfg, "STALE-004").Check(judge.NewJudging(tl.events, at("20s")))
		if v.Status != tc.want {
			t.Errorf("a mark stating %s: %s (%s), want %s", tc.stated, v.Status, v.Message, tc.want)
		}
	}
	if got := (Config{ChallengeAfter: 5 * time.Minute, UnknownAfter: 7 * time.Minute}).Stated(); got != 12*time.Minute {
		t.Errorf("unscaled, the mark states %s, want the two waits, 12m", got)
	}
}
