package olm

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm/rules"
	"github.com/opcert/opcert/probe"
)

// Config is the run's settings for seed 002: the reading of the
// Upgradeable expression, given to the aggregator and to the rules alike.
type Config = rules.Config

// DefaultConfig is the reading of decision 002 (conformance/olm/README.md).
func DefaultConfig() Config { return rules.DefaultConfig() }

// Readings of an Upgradeable expression (decision 002,
// conformance/olm/README.md): holds, the expression says when the operator is
// upgradeable (the seed's example); blocks, it says when an upgrade is blocked
// (the seed's test plan, read literally).
const (
	ReadingHolds  = "holds"
	ReadingBlocks = "blocks"
)

func init() {
	apiserver.RegisterTypes(probe.AddToScheme)
	// The aggregator lists the CRs when it starts, the gate the Upgrades
	// at each change of a Probe: from etcd, not waiting on the cache.
	apiserver.ListFromEtcd("foos.example.com", "bars.example.com", "upgrades.opcert.io", "probes.operators.coreos.com")
	conformance.Register(conformance.Plugin{Name: Name, Seed: Seed, Flags: flags, Scenarios: scenarioKind,
		Profiles: []string{ReadingHolds, ReadingBlocks}, ProfileFlag: "olm-reading"})
}

// flags are seed 002's settings.
func flags(fs *pflag.FlagSet) func() (conformance.Mechanism, error) {
	cfg := DefaultConfig()
	fs.StringVar(&cfg.Reading, "olm-reading", ReadingHolds,
		"olm: what an Upgradeable annotation's expression states: holds (upgradeable while it is True, the seed's example; decision 002) or blocks (an upgrade is blocked while it is True, the seed's test plan read literally)")
	return func() (conformance.Mechanism, error) {
		if cfg.Reading != ReadingHolds && cfg.Reading != ReadingBlocks {
			return nil, fmt.Errorf("--olm-reading %q: use %s or %s", cfg.Reading, ReadingHolds, ReadingBlocks)
		}
		return Mechanism(cfg), nil
	}
}
