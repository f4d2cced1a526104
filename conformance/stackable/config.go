package stackable

import (
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stackable/rules"
)

// Config is the run's settings for seed 004: the profile the rules judge
// against.
type Config = rules.Config

// DefaultConfig is the seed's, as decision 004
// (conformance/stackable/README.md) reads it.
func DefaultConfig() Config { return rules.DefaultConfig() }

func init() {
	// The operator lists its clusters' workloads at each look.
	apiserver.ListFromEtcd("sampleclusters.samples.opcert.io", "statefulsets.apps", "deployments.apps", "daemonsets.apps")
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags, Scenarios: scenarioKind,
		Profiles: []string{rules.ProfileSeed, rules.ProfileOperatorRS}, ProfileFlag: "stackable-profile"})
}

// flags are seed 004's settings.
func flags(fs *pflag.FlagSet) func() (conformance.Mechanism, error) {
	cfg := DefaultConfig()
	fs.StringVar(&cfg.Profile, "stackable-profile", rules.ProfileSeed,
		"stackable: what the rules judge against: seed (ADR027's table row by row, decision 004) or operator-rs (what stackabletech/operator-rs shipped)")
	managers := fs.StringSlice("stackable-operator-manager", nil,
		"stackable: in a recording of a live cluster (watch, analyze), the field managers whose writes are the operator's; no other manager's are (none by default: a recording with no operator write is NOT JUDGED)")
	return func() (conformance.Mechanism, error) {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return MechanismRecording(cfg, *managers), nil
	}
}
