package staticpod

import (
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod/rules"
)

func init() {
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags, Scenarios: scenarioKind,
		Profiles: []string{rules.ProfileSeed, rules.ProfileLibraryGo}, ProfileFlag: "staticpod-profile"})
}

// flags are seed 003's settings: the readiness timeout the operator gives
// its startup-monitors (003 §Readiness: 5m) and the profile the rules judge
// against.
func flags(fs *pflag.FlagSet) func() (conformance.Mechanism, error) {
	cfg := DefaultConfig()
	fs.DurationVar(&cfg.Timeout, "staticpod-timeout", cfg.Timeout, "staticpod: the startup-monitor's readiness timeout, given to the monitors and judged by the rules")
	fs.StringVar(&cfg.Profile, "staticpod-profile", cfg.Profile, "staticpod: what the rules judge against: seed (seed 003 as decision 003 reads it) or library-go (what openshift/library-go shipped)")
	return func() (conformance.Mechanism, error) {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return Mechanism(cfg), nil
	}
}
