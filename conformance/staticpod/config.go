package staticpod

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/rules"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/node"
)

// Config is the run's settings for seed 003.
type Config struct {
	// Timeout is the readiness timeout the operator gives the
	// startup-monitor (003 §Readiness: 5m, "to be specified in the
	// operator"); the monitor subjects take it, the rules judge it.
	Timeout time.Duration
	// Profile is the rules' profile: rules.ProfileSeed or
	// rules.ProfileLibraryGo.
	Profile string
	// Reaction is the reaction bound the rules judge with
	// (rules.DefaultReaction, 1m: see rules.Config.Reaction); the broken
	// subjects that react late are late past it.
	Reaction time.Duration
	// Scale is the run's time scale (opcert run --time-scale; 0 means 1):
	// Timeout and Reaction are already scaled (conformance.Scalable.Scaled), and the
	// rules' retry bounds, the operator subjects' back-off, the operand
	// models and the write times are multiplied by it.
	Scale float64
	// Tolerance is the slack the rules allow on deadlines in real time
	// (conformance.Tolerant.WithTolerance: conformance.RealtimeTolerance).
	Tolerance time.Duration
}

// scaled is d as a run at the config's time scale plays it.
func (c Config) scaled(d time.Duration) time.Duration {
	if c.Scale == 0 || c.Scale == 1 {
		return d
	}
	return time.Duration(float64(d) * c.Scale)
}

// DefaultConfig is the seed's: 5m, judged as decision 003 reads the seed,
// with the default reaction bound.
func DefaultConfig() Config {
	return Config{Timeout: 5 * time.Minute, Profile: rules.ProfileSeed, Reaction: rules.DefaultReaction}
}

// Bounds on --staticpod-timeout: below a second no monitor could probe;
// above a day no scenario sees a fallback.
const (
	minTimeout = time.Second
	maxTimeout = 24 * time.Hour
)

// Validate refuses settings that make no sense, naming the flag.
func (c Config) Validate() error {
	if c.Timeout < minTimeout || c.Timeout > maxTimeout {
		return fmt.Errorf("--staticpod-timeout %s is out of range: give %s to %s (the seed's is 5m)", c.Timeout, minTimeout, maxTimeout)
	}
	if c.Reaction < 0 || c.Reaction > maxTimeout {
		return fmt.Errorf("reaction bound %s is out of range: give 0 to %s (the default is %s)", c.Reaction, maxTimeout, rules.DefaultReaction)
	}
	if c.Profile != rules.ProfileSeed && c.Profile != rules.ProfileLibraryGo {
		return fmt.Errorf("--staticpod-profile %q is not known: give %s (seed 003 as decision 003 reads it) or %s (what library-go shipped)", c.Profile, rules.ProfileSeed, rules.ProfileLibraryGo)
	}
	return nil
}

// Rules is the configuration the STATICPOD rules judge with.
func (c Config) Rules() rules.Config {
	rc := rules.DefaultConfig()
	if c.Profile == rules.ProfileLibraryGo {
		rc = rules.LibraryGo()
	}
	rc.Timeout, rc.Reaction, rc.Tolerance = c.Timeout, c.Reaction, c.Tolerance
	rc.FirstRetry, rc.MaxBackoff = c.scaled(rc.FirstRetry), c.scaled(rc.MaxBackoff)
	return rc
}

// Estimate is how many API calls a scenario costs on the reference: the
// namespace and the ClusterOperator, then about 5 per trial of a revision
// on a node (an install or a fallback: the mirror pod deleted, created and
// its status written, the operator's status), a trial per rollout, its
// fallback if its operand never gets ready, and the retries the back-off
// allows before the next rollout or the end. The built-ins cost within a
// quarter of it, but for staticpod-etcd-unhealthy: an etcd outage is not
// counted.
func (c Config) Estimate(sc *scenarios.Scenario) int {
	w := scenarioWorld(sc)
	var rollouts []*scenarios.Step
	for i := range sc.Steps {
		if _, ok := sc.Steps[i].Arg.(*Rollout); ok {
			rollouts = append(rollouts, &sc.Steps[i])
		}
	}
	trials := 0
	if w.Installed > 0 {
		trials++
	}
	for i, st := range rollouts {
		trials++
		switch w.Model(st.Arg.(*Rollout).Revision).Kind {
		case node.Healthy, node.EtcdDownThenBack:
			continue
		case node.InvalidManifest, node.BadConfig, node.PortWaitTimeout:
			trials++ // its fallback; no retry after NeverStartedUp or CrashLooping
			continue
		}
		until := sc.Duration.Duration
		if i+1 < len(rollouts) {
			until = rollouts[i+1].Time
		}
		// Fallbacks and retries: 10m, 20m, 40m, ... 6h after each fallback.
		at, d := st.Time+c.Timeout, 10*time.Minute
		for trials++; at+d < until; d = min(2*d, 6*time.Hour) {
			at += d + c.Timeout
			trials += 2
		}
	}
	return 3 + 5*trials*len(w.NodeNames())
}

// Timing is where c keeps its reaction bound and its tolerance
// (conformance.Timed).
func (c *Config) Timing() (bound, tolerance *time.Duration) { return &c.Reaction, &c.Tolerance }
