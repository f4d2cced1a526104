package stackable

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stackable/rules"
	simworld "github.com/opcert/opcert/sim/world"
)

// Config is the run's settings for seed 004: the profile the rules judge
// against.
type Config = rules.Config

// DefaultConfig is the seed's, as DESIGN 004 reads it.
func DefaultConfig() Config { return rules.DefaultConfig() }

func init() {
	// The operator lists its clusters' workloads at each look.
	simworld.ListFromEtcd("sampleclusters.samples.opcert.io", "statefulsets.apps", "deployments.apps", "daemonsets.apps")
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags,
		Profiles: []string{rules.ProfileSeed, rules.ProfileOperatorRS}, ProfileFlag: "stackable-profile"})
}

// flags are seed 004's settings.
func flags(fs *pflag.FlagSet) func() (*conformance.Mechanism, error) {
	cfg := DefaultConfig()
	fs.StringVar(&cfg.Profile, "stackable-profile", rules.ProfileSeed,
		"stackable: what the rules judge against: seed (ADR027's table row by row, DESIGN 004) or operator-rs (what stackabletech/operator-rs shipped)")
	return func() (*conformance.Mechanism, error) {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return Mechanism(cfg), nil
	}
}

// scalable gives m what a real-time run needs: its times scaled with the
// run's (Mechanism.Scaled: the reaction bound, the scenario's times being
// the stage's), a tolerance on when the operator
// must reflect a change (Mechanism.WithTolerance: rules.Config.Tolerance)
// and the reaction bound the rules judge with (Mechanism.Reaction and
// WithReaction, opcert's --reaction-bound: rules.Config.Reaction).
func scalable(m *conformance.Mechanism, rc rules.Config) *conformance.Mechanism {
	m.Scaled = func(scale float64) *conformance.Mechanism {
		// The bound is a requeue of the scenario's world, which a
		// time-scaled run plays faster: scaled with it, it still judges the
		// states the run holds (unscaled, 30s would outlast a built-in at
		// 0.03); the least is a nanosecond, zero meaning "at the instant".
		c := rc
		if c.Reaction > 0 {
			c.Reaction = max(time.Duration(float64(c.Reaction)*scale), 1)
		}
		t := *m
		t.Rules = rules.Rules(c)
		return scalable(&t, c)
	}
	m.WithTolerance = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Tolerance = max(c.Tolerance, d)
		t := *m
		t.Rules = rules.Rules(c)
		return scalable(&t, c)
	}
	m.Reaction = rc.Reaction
	m.WithReaction = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Reaction = d
		t := *m
		t.Rules = rules.Rules(c)
		return scalable(&t, c)
	}
	return m
}
