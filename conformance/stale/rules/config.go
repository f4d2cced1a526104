package rules

import (
	"fmt"
	"time"
)

// Config holds the thresholds the rules judge against.
type Config struct {
	ChallengeAfter time.Duration // 000 §Proposal: 10m
	UnknownAfter   time.Duration // 000 §Proposal: 10m more
	// AnswerBudget is the mechanism's reaction bound (conformance.Mechanism
	// .Reaction; --reaction-bound, or its older name --answer-budget): 000
	// §Test Plan's "minimum update time for the stale message", 30s. It is
	// how long the operator may take to reset a challenged message
	// (STALE-007), and the only slack the detector has past the seed's two
	// 10-minute deadlines (STALE-002, STALE-004): a detector that rechecks
	// on a resync rather than at the exact instant is as faithful as one
	// that requeues at the deadline. The seed's only number for a reaction
	// is this one, so operator and detector are held to the same bound.
	AnswerBudget time.Duration
	// Silence is the silence a mark's text states ("more than 20
	// minutes"); zero: ChallengeAfter+UnknownAfter. A run at a time scale
	// plays the world's thresholds faster and keeps the world's text
	// (Scaled sets it), as its scenario's expectations do.
	Silence time.Duration
	// Tolerance is the slack allowed on deadlines: zero in virtual time,
	// where the reference is exact; real-time tiers set it.
	Tolerance time.Duration
}

// DefaultConfig is the seed's: 10m, 10m, a reaction bound of 30s, exact.
func DefaultConfig() Config {
	return Config{ChallengeAfter: seedChallengeAfter, UnknownAfter: seedUnknownAfter, AnswerBudget: seedAnswerBudget}
}

// Stated is the silence a mark's text states.
func (c Config) Stated() time.Duration {
	if c.Silence > 0 {
		return c.Silence
	}
	return c.ChallengeAfter + c.UnknownAfter
}

// Bounds on the flags: below a second the fake clock's deadlines mean
// nothing a real detector could keep; above a week no scenario sees a cycle.
const (
	minThreshold = time.Second
	maxThreshold = 7 * 24 * time.Hour
)

// Validate refuses thresholds that make no sense, naming the flag.
func (c Config) Validate() error {
	for _, f := range []struct {
		flag string
		d    time.Duration
	}{{"--challenge-after", c.ChallengeAfter}, {"--unknown-after", c.UnknownAfter}, {"--answer-budget", c.AnswerBudget}} {
		if f.d < minThreshold || f.d > maxThreshold {
			return fmt.Errorf("%s %s is out of range: give %s to %s (the seed's defaults are 10m, 10m and 30s)", f.flag, f.d, minThreshold, maxThreshold)
		}
	}
	if c.AnswerBudget >= c.UnknownAfter {
		return fmt.Errorf("--answer-budget %s is not below --unknown-after %s: an operator that slow is marked Unknown before the budget runs out, so the invariant could never fail", c.AnswerBudget, c.UnknownAfter)
	}
	return nil
}

// Timing is where c keeps its reaction bound, 000 §Test Plan's minimum
// stale-message update time (AnswerBudget), and its tolerance
// (conformance.Timed).
func (c *Config) Timing() (bound, tolerance *time.Duration) { return &c.AnswerBudget, &c.Tolerance }
