package stale

import (
	"github.com/opcert/opcert/conformance/stale/rules"
	"github.com/opcert/opcert/scenarios"
)

// Config holds the thresholds the STALE rules judge against and the
// detector runs with (conformance/stale/rules).
type Config = rules.Config

// DefaultConfig is the seed's: 10m, 10m, 30s, exact.
func DefaultConfig() Config { return rules.DefaultConfig() }

// Roles of seed 000.
const (
	RoleDetector = rules.RoleDetector
	RoleOperator = rules.RoleOperator
)

// OperatorActor is the actor name of the operator that owns a ClusterOperator;
// rules use it to find when that operator was down.
func OperatorActor(clusterOperator string) string { return rules.OperatorActor(clusterOperator) }

// estimate is how many API calls a scenario costs on the reference: per
// operator a create and a first status, then a challenge and an answer per
// cycle (stale-fleet-24h: estimated 10,465, measured 9,854),
// three more writes per chaos fault (a restart's write, a challenge and a
// mark), and one per step.
func estimate(c Config, sc *scenarios.Scenario) int {
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
