package rules

import (
	"fmt"
	"slices"
	"time"
)

// Profiles: what a timeline is judged against.
const (
	// ProfileSeed is seed 003 as decision 003 reads it.
	ProfileSeed = "seed"
	// ProfileLibraryGo is what openshift/library-go shipped (docs/upstream.md).
	ProfileLibraryGo = "library-go"
)

// Roles of seed 003 the rules judge.
const (
	RoleStartupMonitor = "startup-monitor"
	RoleInstaller      = "installer"
	RoleOperator       = "operator"
	RolePruner         = "pruner"
)

// Config holds what the STATICPOD rules judge against. The thresholds are
// fields; what differs in kind between the seed and library-go (the
// readiness checks and their reasons, the condition type, when the
// condition clears, whether the pruner knows last-known-good) follows
// Profile.
type Config struct {
	Profile string        // ProfileSeed or ProfileLibraryGo
	Timeout time.Duration // 003 §Readiness: 5m from the manifest's write to the fallback
	// FirstRetry is the least wait before the first retry (003 §Retries: ">=N
	// minutes, N=O(10)"; decision 003, conformance/staticpod/README.md: at
	// least 10m).
	FirstRetry time.Duration
	// MaxBackoff is the longest gap between a fallback and its retry (003
	// §Retries: "moving up to 6h maximum").
	MaxBackoff time.Duration
	// NoRetry are the fallback reasons after which the failed revision is
	// never installed again (003 §Retries: CrashLooping, NeverStartedUp).
	NoRetry []string
	// Tolerance is the slack allowed on deadlines: zero in virtual time,
	// where the reference is exact; real-time tiers set it.
	Tolerance time.Duration
	// Reaction is the reaction bound: how long after the instant the seed
	// asks for a reaction (a deadline, a change the subject can see) it
	// may come, as a controller's requeue or resync makes it come. It
	// widens the late side of every deadline, never the early side.
	Reaction time.Duration
}

// DefaultReaction is the reaction bound the rules are built with: one
// minute. Seed 003 counts in minutes (a 5m readiness timeout, retries
// after ">=N minutes, N=O(10)", a 6h cap, "downtime O(5min) ... is
// completely ok"), and library-go's controllers resync every minute
// (docs/upstream.md): a monitor or operator that reacts at its next one-minute
// resync is faithful. A minute is a fifth of the timeout, a tenth of the
// first retry: a reaction later than that is no longer "at" the deadline.
const DefaultReaction = time.Minute

// late is the slack on the late side of a deadline: Tolerance and the
// reaction bound.
func (c Config) late() time.Duration { return c.Tolerance + c.Reaction }

// DefaultConfig is the seed's: 5m, a first retry no earlier than 10m, a
// growing back-off with no gap above 6h, no retry after CrashLooping or
// NeverStartedUp, the default reaction bound.
func DefaultConfig() Config {
	return Config{
		Profile:    ProfileSeed,
		Timeout:    5 * time.Minute,
		FirstRetry: 10 * time.Minute,
		MaxBackoff: 6 * time.Hour,
		NoRetry:    []string{reasonCrashLooping, reasonNeverStartedUp},
		Reaction:   DefaultReaction,
	}
}

// LibraryGo is what library-go shipped (docs/upstream.md "Static pod
// fallback"): the pod template's 300s timeout, back-off 10m * 2^count with
// the count already 1 (a first retry after 20m) capped at 2h, every reason
// retried, its own checks and reasons, StaticPodFallbackRevisionDegraded,
// and a pruner that does not know last-known-good (STATICPOD-009 is not
// judged).
func LibraryGo() Config {
	return Config{
		Profile:    ProfileLibraryGo,
		Timeout:    5 * time.Minute,
		FirstRetry: 20 * time.Minute,
		MaxBackoff: 2 * time.Hour,
		Reaction:   DefaultReaction,
	}
}

// Validate refuses a configuration the rules cannot judge with.
func (c Config) Validate() error {
	if c.Profile != ProfileSeed && c.Profile != ProfileLibraryGo {
		return fmt.Errorf("profile %q: give %q or %q", c.Profile, ProfileSeed, ProfileLibraryGo)
	}
	if c.Timeout <= 0 || c.FirstRetry <= 0 || c.MaxBackoff < c.FirstRetry || c.Tolerance < 0 || c.Reaction < 0 {
		return fmt.Errorf("timeout %s, first retry %s, max back-off %s, tolerance %s, reaction bound %s: give positive durations (the slack ones may be zero), the back-off cap no shorter than the first retry",
			c.Timeout, c.FirstRetry, c.MaxBackoff, c.Tolerance, c.Reaction)
	}
	known := c.reasons()
	for _, r := range c.NoRetry {
		if !slices.Contains(known, r) {
			return fmt.Errorf("no-retry reason %q is none of the %s profile's reasons %v", r, c.Profile, known)
		}
	}
	return nil
}

func (c Config) libraryGo() bool { return c.Profile == ProfileLibraryGo }

// reasons is the profile's vocabulary of fallback reasons.
func (c Config) reasons() []string {
	if c.libraryGo() {
		return libraryGoReasons
	}
	return seedReasons
}

// condition is the ClusterOperator condition type that reports a fallback.
func (c Config) condition() string {
	if c.libraryGo() {
		return libraryGoCondition
	}
	return seedCondition
}
