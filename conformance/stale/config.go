package stale

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/scenarios"
)

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

// Estimate is how many API calls a scenario costs on the reference: per
// operator a create and a first status, then a challenge and an answer per
// cycle (stale-fleet-24h: estimated 10,465, measured 9,854),
// three more writes per chaos fault (a restart's write, a challenge and a
// mark), and one per step.
func (c Config) Estimate(sc *scenarios.Scenario) int {
	w := scenarioWorld(sc)
	fleet := w.Fleet()
	cycles := int(sc.Duration.Duration / c.ChallengeAfter)
	calls := len(fleet)*(2+2*cycles) + len(sc.Steps)
	if w.Chaos != nil && w.Chaos.MeanUptime.Duration > 0 {
		faults := float64(len(fleet)) * float64(sc.Duration.Duration) / float64(w.Chaos.MeanUptime.Duration)
		calls += 3 * int(faults)
	}
	return calls
}
