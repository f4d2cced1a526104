package rules

import (
	"fmt"
	"time"
)

// Profiles: what a timeline is judged against.
const (
	// ProfileSeed is seed 004's table as decision 004
	// (conformance/stackable/README.md) reads it, row by row.
	ProfileSeed = "seed"
	// ProfileOperatorRS is what stackabletech/operator-rs shipped
	// (docs/upstream.md, crates/stackable-operator/src/status/condition/).
	ProfileOperatorRS = "operator-rs"
)

// RoleOperator is the role of the operator that reconciles every
// SampleCluster of a run and publishes its conditions.
const RoleOperator = "operator"

// Config holds what the STACKABLE rules judge against.
type Config struct {
	// Profile is ProfileSeed (the default; "" means it) or
	// ProfileOperatorRS.
	Profile string
	// Reaction is the reaction bound: how long the operator may take to
	// reflect a change of what it reads (DefaultReaction; --reaction-bound
	// sets it). Zero asks for the change reflected once its instant is
	// quiet.
	Reaction time.Duration
	// Tolerance is the slack a real-time run or a recording adds to the
	// bound (the scaled clock's jitter); zero in virtual time.
	Tolerance time.Duration
}

// DefaultReaction is the reaction bound the rules are built with. The ADR
// gives no deadline: its table describes the status "after a reconcile"
// (004 §Implementation details), and an operator reconciles on the events
// of what it watches and requeues. A Stackable operator watches its
// workloads, not necessarily their pods, so it may see a pod's phase only
// at its next requeue: 30 s is one such requeue, and the time a simulated
// pod takes to get ready, so that a state a pod's start holds is judged.
const DefaultReaction = 30 * time.Second

// DefaultConfig is the seed's table, in virtual time, with the default
// reaction bound.
func DefaultConfig() Config { return Config{Profile: ProfileSeed, Reaction: DefaultReaction} }

// Validate refuses a configuration the rules cannot judge with.
func (c Config) Validate() error {
	if c.Profile != "" && c.Profile != ProfileSeed && c.Profile != ProfileOperatorRS {
		return fmt.Errorf("profile %q: give %q or %q", c.Profile, ProfileSeed, ProfileOperatorRS)
	}
	if c.Tolerance < 0 {
		return fmt.Errorf("tolerance %s: give a duration of zero or more", c.Tolerance)
	}
	if c.Reaction < 0 {
		return fmt.Errorf("reaction bound %s: give a duration of zero or more", c.Reaction)
	}
	return nil
}

// slack is how long after a change the operator's output may still
// reflect what it read before: the reaction bound and the tolerance.
func (c Config) slack() time.Duration { return c.Reaction + c.Tolerance }

func (c Config) operatorRS() bool { return c.Profile == ProfileOperatorRS }

// profile is the profile in force, by name.
func (c Config) profile() string {
	if c.operatorRS() {
		return ProfileOperatorRS
	}
	return ProfileSeed
}

// Timing is where c keeps its reaction bound and its tolerance
// (conformance.Timed).
func (c *Config) Timing() (bound, tolerance *time.Duration) { return &c.Reaction, &c.Tolerance }
