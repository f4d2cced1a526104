package stale

import (
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
)

func init() {
	conformance.Register(conformance.Plugin{Name: "stale", Seed: "000", Flags: flags, Scenarios: scenarioKind})
}

// flags are seed 000's thresholds (000 §Proposal, §Test Plan), with the
// seed's values as defaults.
func flags(fs *pflag.FlagSet) func() (conformance.Mechanism, error) {
	cfg := DefaultConfig()
	fs.DurationVar(&cfg.ChallengeAfter, "challenge-after", cfg.ChallengeAfter, "stale: time without movement before a challenge")
	fs.DurationVar(&cfg.UnknownAfter, "unknown-after", cfg.UnknownAfter, "stale: time without an answer before Unknown")
	fs.DurationVar(&cfg.AnswerBudget, "answer-budget", cfg.AnswerBudget,
		"stale: the reaction bound, 000 §Test Plan's minimum stale-message update time: how long an operator may take to reset a challenge, and the detector past its 10-minute deadlines (the older name of --reaction-bound stale=D, which wins when both are given)")
	managers := fs.StringSlice("detector-manager", DefaultDetectorManagers,
		"stale: in a recording of a live cluster (watch, analyze), the field managers whose writes are the detector's; every other manager's are the operator's")
	return func() (conformance.Mechanism, error) {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return MechanismRecording(cfg, *managers), nil
	}
}
