package rules

import (
	"fmt"
	"time"
)

// Profiles: what a timeline is judged against.
const (
	// ProfileSeed is seed 004's table as DESIGN 004 reads it, row by row.
	ProfileSeed = "seed"
	// ProfileOperatorRS is what stackabletech/operator-rs shipped
	// (UPSTREAM, crates/stackable-operator/src/status/condition/).
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
	// Tolerance is how long the operator may take to reflect a change of
	// what it reads: zero in virtual time, where it reflects it once the
	// instant of the change is quiet; a real-time run or a recording sets
	// it.
	Tolerance time.Duration
}

// DefaultConfig is the seed's table, in virtual time.
func DefaultConfig() Config { return Config{Profile: ProfileSeed} }

// Validate refuses a configuration the rules cannot judge with.
func (c Config) Validate() error {
	if c.Profile != "" && c.Profile != ProfileSeed && c.Profile != ProfileOperatorRS {
		return fmt.Errorf("profile %q: give %q or %q", c.Profile, ProfileSeed, ProfileOperatorRS)
	}
	if c.Tolerance < 0 {
		return fmt.Errorf("tolerance %s: give a duration of zero or more", c.Tolerance)
	}
	return nil
}

func (c Config) operatorRS() bool { return c.Profile == ProfileOperatorRS }

// profile is the profile in force, by name.
func (c Config) profile() string {
	if c.operatorRS() {
		return ProfileOperatorRS
	}
	return ProfileSeed
}
