package rules

import "time"

// Config holds what the CO rules judge against.
type Config struct {
	// Tolerance is the slack on instants: zero in virtual time, where
	// writes and their times are exact; a real-time run or a recording
	// sets it (its lag, the API server's second-truncated times).
	Tolerance time.Duration
	// React is how long an operator may take to report what it can see
	// (a completed rollout's version, an administrator's blocker) before
	// Tolerance: zero, the reference reports at the instant it sees it
	// (doc.go, Readings).
	React time.Duration
	// Significant is how long a rollout may run before it owes
	// Progressing=True: 001 §Version reporting during an upgrade, "more
	// than a second or two"; zero means the seed's 2s.
	Significant time.Duration
	// Stuck is how long a rollout may make no progress before Failing or
	// Degraded is owed (001 §What should an operator report, honored by
	// components 2); the seed gives no figure, zero means 10m (doc.go,
	// Readings).
	Stuck time.Duration
}

// DefaultConfig is the seed's, exact.
func DefaultConfig() Config {
	return Config{Significant: significantRollout, Stuck: stuckRollout}
}

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
