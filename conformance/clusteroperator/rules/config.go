package rules

import "time"

// Config holds what the CO rules judge against.
type Config struct {
	// Tolerance is the slack on instants: zero in virtual time, where
	// writes and their times are exact; a real-time run or a recording
	// sets it (its lag, the API server's second-truncated times).
	Tolerance time.Duration
	// Reaction is the reaction bound: how long an operator may take to
	// report a change it can see (a completed rollout's version, a rollout
	// begun, an administrator's blocker, its operands serving again, a
	// stall's deadline) before it is late. Zero asks for the same instant;
	// DefaultConfig's is DefaultReaction (doc.go, Readings). A scaled
	// real-time run scales it with the scenario (conformance.Scalable.Scaled).
	Reaction time.Duration
	// Significant is how long a rollout may run before it owes
	// Progressing=True: 001 §Version reporting during an upgrade, "more
	// than a second or two"; zero means the seed's 2s. Reaction is added.
	Significant time.Duration
	// Stuck is how long a rollout may make no progress before Failing or
	// Degraded is owed (001 §What should an operator report, honored by
	// components 2); the seed gives no figure, zero means 10m (doc.go,
	// Readings). Reaction is added.
	Stuck time.Duration
}

// DefaultReaction is the reaction bound the CO rules judge with unless told
// otherwise: 30s. Seed 001 gives no figure beyond "a second or two" for
// Progressing; real operators react to a watch event within a second but
// resync or requeue on a period (library-go's status syncer every minute,
// docs/upstream.md; controller-runtime operators commonly requeue after 10 to
// 30s), and 30s is the project's budget for an operator rewriting its status
// (decision 000, conformance/stale/README.md: the minimum stale-message update
// time). It is short beside the version operator's 40 minutes and origin's 30
// minutes for a version change (docs/upstream.md), so no real harm hides in
// it.
const DefaultReaction = 30 * time.Second

// DefaultConfig is the seed's figures with the default reaction bound.
func DefaultConfig() Config {
	return Config{Reaction: DefaultReaction, Significant: significantRollout, Stuck: stuckRollout}
}

// slack is how late a reaction may come: the bound and the tolerance.
func (c Config) slack() time.Duration { return c.Reaction + c.Tolerance }

// significant is Significant, the seed's when unset.
func (c Config) significant() time.Duration {
	if c.Significant <= 0 {
		return significantRollout
	}
	return c.Significant
}

// stuck is Stuck, the rules' 10m when unset.
func (c Config) stuck() time.Duration {
	if c.Stuck <= 0 {
		return stuckRollout
	}
	return c.Stuck
}

// Timing is where c keeps its reaction bound and its tolerance
// (conformance.Timed).
func (c *Config) Timing() (bound, tolerance *time.Duration) { return &c.Reaction, &c.Tolerance }
