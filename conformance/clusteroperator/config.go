package clusteroperator

import (
	"cmp"
	"time"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	// Seed 001's static checks of a payload (opcert lint manifests) come
	// with the mechanism.
	_ "github.com/opcert/opcert/conformance/clusteroperator/lint"
	"github.com/opcert/opcert/conformance/clusteroperator/rules"
)

// Config is the run's settings for seed 001: none yet beyond the rules'
// defaults, which the seed fixes.
type Config struct{}

// DefaultConfig is the seed's.
func DefaultConfig() Config { return Config{} }

// Rules is the configuration the CO rules judge with.
func (Config) Rules() rules.Config { return rules.DefaultConfig() }

func init() {
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags})
}

// flags are seed 001's settings: none, so far.
func flags(*pflag.FlagSet) func() (*conformance.Mechanism, error) {
	return func() (*conformance.Mechanism, error) { return Mechanism(DefaultConfig()), nil }
}

// scalable gives m what a real-time run needs: its rules' thresholds
// scaled with the run's time (Mechanism.Scaled) and a tolerance on their
// deadlines (Mechanism.WithTolerance); and its reaction bound
// (Mechanism.Reaction, WithReaction: --reaction-bound), scaled too: a
// scenario compressed to a few seconds would end before an unscaled 30s
// were due, and an operator told {timeScale} scales its requeue with it.
func scalable(m *conformance.Mechanism, rc rules.Config) *conformance.Mechanism {
	with := func(c rules.Config) *conformance.Mechanism {
		t := *m
		t.Rules = rules.Rules(c)
		return scalable(&t, c)
	}
	m.Reaction = rc.Reaction
	m.WithReaction = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Reaction = d
		return with(c)
	}
	m.Scaled = func(scale float64) *conformance.Mechanism {
		c, seed := rc, rules.DefaultConfig()
		// Zero would mean the seed's figure: the least is a nanosecond.
		c.Significant = max(time.Duration(float64(cmp.Or(c.Significant, seed.Significant))*scale), 1)
		c.Stuck = max(time.Duration(float64(cmp.Or(c.Stuck, seed.Stuck))*scale), 1)
		c.Reaction = time.Duration(float64(c.Reaction) * scale)
		return with(c)
	}
	m.WithTolerance = func(d time.Duration) *conformance.Mechanism {
		c := rc
		c.Tolerance = max(c.Tolerance, d)
		return with(c)
	}
	return m
}
