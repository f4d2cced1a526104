package rules

import "time"

// Config holds what the OLM rules judge against.
type Config struct {
	// Reading is how an Upgradeable expression is read (decision 002,
	// conformance/olm/README.md): ReadingHolds (the default; "" means it) or
	// ReadingBlocks.
	Reading string
	// Reaction is the reaction bound: how long after a change of what it
	// reads (a CR's condition, a CRD's annotation, an edit of the Probe's
	// spec, a Probe's Upgradeable for the gate) a subject may take to
	// reflect it. The seed gives no time; a controller reflects a change
	// at its next reconcile, which a watch triggers at once and a
	// requeue or a short resync within seconds (DefaultReaction).
	Reaction time.Duration
	// Tolerance is the slack a real-time run or a recording adds to the
	// bound (the recorder's latency, the API server's times kept to the
	// second); zero in virtual time.
	Tolerance time.Duration
}

// DefaultReaction is the reaction bound of seed 002's rules: 30s. 002
// §Example Workflow has the status probe operator "keep the status of
// the Probe resource synced with the conditions in the CRs" and gives no
// time; the bound is the window in which OLM's gate may still read a
// Probe that does not yet show a CR's new condition, so it is kept to
// what a controller needs to notice a change: a watch event at once, a
// requeue after a conflict or an error (controller-runtime's back-off
// passes 10s after about eleven failures in a row), a resync of 30s or
// less. A team whose aggregator resyncs less often loosens it with
// --reaction-bound olm=D, and the report states the bound in force.
const DefaultReaction = 30 * time.Second

// DefaultConfig is the reading of decision 002 (conformance/olm/README.md), in
// virtual time, with the default reaction bound.
func DefaultConfig() Config { return Config{Reading: ReadingHolds, Reaction: DefaultReaction} }

// allowance is how long after a change a subject may take to reflect it:
// the reaction bound and the real-time slack.
func (c Config) allowance() time.Duration { return c.Reaction + c.Tolerance }

// blocking tells whether a CR whose Upgradeable expression evaluates to v
// blocks the upgrade: False under the reading "holds", True under
// "blocks"; Unknown never does (002 §Test Plan, "cannot be calculated").
func (c Config) blocking(v truth) bool {
	if c.Reading == ReadingBlocks {
		return v == tTrue
	}
	return v == tFalse
}

// Timing is where c keeps its reaction bound and its tolerance
// (conformance.Timed).
func (c *Config) Timing() (bound, tolerance *time.Duration) { return &c.Reaction, &c.Tolerance }
