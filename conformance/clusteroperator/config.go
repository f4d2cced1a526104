package clusteroperator

import (
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
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags, Scenarios: scenarioKind})
}

// flags are seed 001's settings: none, so far.
func flags(*pflag.FlagSet) func() (conformance.Mechanism, error) {
	return func() (conformance.Mechanism, error) { return Mechanism(DefaultConfig()), nil }
}
