package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits on what a scenario may ask for. Every size and count a file can
// control is bounded here, so that a mistaken or hostile file is refused when
// it is loaded, with a message, instead of exhausting memory or failing
// against the API server in the middle of a run. scenarios/README.md
// ("Limits") lists them for users; keep the two in step.
const (
	// maxFileBytes bounds what Load reads: a path to /dev/zero or to a pipe
	// that never ends must be refused, not read forever. The largest built-in
	// is under 2 KiB.
	maxFileBytes = 1 << 20

	// MaxNameLength, a scenario name's, keeps report file names (timelines/NN-<name>.jsonl)
	// and JUnit test names short.
	MaxNameLength = 40

	// RunPrefixRoom is what a run may prepend to every object name it sends
	// to the API server: "r01-" today (4 bytes), with room to grow. A kind
	// whose names become object names leaves this much room.
	RunPrefixRoom = 8
	// maxCreateName bounds a create object's metadata.name: a DNS-1123
	// subdomain (253), the longest name most kinds accept, after the prefix.
	maxCreateName = 253 - RunPrefixRoom

	// MaxReason and MaxMessage are metav1.Condition's limits, which the rest
	// of Kubernetes holds conditions to (some CRDs, ClusterOperator's among
	// them, set none, so the API server would take any size). The type is
	// one of a kind's few names, so it needs no length limit.
	MaxReason  = 1024
	MaxMessage = 32768

	// MaxProcesses bounds the simulated processes of a run (fleets
	// expanded): each is an actor, and chaos draws faults for each.
	MaxProcesses = 500
	// maxSteps and maxExpects bound a scenario's script; the built-ins use
	// a handful. Each expectation is an API read and a line of the report.
	maxSteps   = 10000
	maxExpects = 1000

	// maxDepth bounds the nesting of a create object's mappings and lists;
	// real objects stay under 10.
	maxDepth = 32
	// MaxObjectBytes bounds one create object encoded as JSON, as it is sent.
	// The API server refuses requests over 3 MiB and etcd writes over
	// 1.5 MiB, and what etcd stores adds metadata and managed fields to what
	// was sent: 1 MiB keeps a loaded object clear of both.
	MaxObjectBytes = 1 << 20
	// MaxCreateBytes bounds all create objects together: aliases can repeat
	// a large object in many steps, and each copy is written to etcd.
	MaxCreateBytes = 8 << 20

	// MaxDuration bounds the virtual time of a run: 30 days.
	MaxDuration = 30 * 24 * time.Hour
	// minMeanUptime and MaxFaults bound chaos: Plan draws about
	// operators x duration / meanUptime faults and the run plays each one.
	minMeanUptime = time.Second
	MaxFaults     = 100000

	// maxActorName bounds the actor an apiErrors step names: actors are
	// named after objects (a DNS-1123 subdomain, 253) or nodes.
	maxActorName = 253
	// maxRetryAfter bounds the Retry-After an apiErrors step sends: the
	// API server's own are a second or a few.
	maxRetryAfter = time.Hour
	// maxCrashWrite bounds the write a perturb step's crash comes after,
	// and maxPerturbBy a window's delay or lag: a day is long past any
	// reaction bound.
	maxCrashWrite = 1000000
	maxPerturbBy  = 24 * time.Hour
	// maxFaultKinds bounds the kinds an apiErrors step names: an operator
	// writes a handful of kinds, and the scheduler scans them each call.
	maxFaultKinds = 32
	// maxKindName bounds one of them: a Kind (63, a resource name's
	// limit) and a group (a DNS-1123 subdomain, 253).
	maxKindName = 63 + 1 + 253

	// maxErrors bounds what one load reports; past it the user has enough
	// to fix first.
	maxErrors = 50
)

// mib writes a byte count that is a whole number of MiB for messages.
func mib(n int) string { return fmt.Sprintf("%d MiB", n>>20) }

// steps checks the length of the script; its steps are checked one by one
// only within it.
func (c *Check) steps() bool {
	if n := len(c.s.Steps); n > maxSteps {
		c.Errorf("steps", "%d steps; a scenario has at most %d, so split it", n, maxSteps)
		return false
	}
	expects := 0
	for _, st := range c.s.Steps {
		if st.Expect != nil {
			expects++
		}
	}
	if expects > maxExpects {
		c.Errorf("steps", "%d expect steps; a scenario checks at most %d, so keep the checks that prove something", expects, maxExpects)
	}
	return true
}

// Faults holds a mechanism's random faults to the fault budget, the same
// for every mechanism: about sources x duration / mean faults are drawn
// (each process of stale's chaos fails once per meanUptime; each cluster
// of stackable's load once per meanTimeToFailure), each of which the run
// plays, so a mean shorter than a second, or more than MaxFaults faults,
// is refused. field is the path of the mean, sources names what fails
// ("processes", "clusters"). Every mechanism whose scenarios draw faults
// at random calls it from its validation.
func (c *Check) Faults(field string, mean time.Duration, sources int, what string) {
	name := field[strings.LastIndexByte(field, '.')+1:]
	d := c.s.Duration.Duration
	switch {
	case mean <= 0:
		return // the mechanism says what it needs
	case mean < minMeanUptime:
		c.Errorf(field, "%v is too short; use at least %v", mean, minMeanUptime)
		return
	case d <= 0 || d > MaxDuration || sources <= 0 || sources > MaxProcesses:
		return // reported already
	}
	expected := float64(sources) * float64(d) / float64(mean)
	if expected <= MaxFaults {
		return
	}
	// Rounded up to the nanosecond, then to the second, for the message.
	total := time.Duration(sources) * d // at most 500 x 720h: no overflow
	least := ((total+MaxFaults-1)/MaxFaults + time.Second - 1).Truncate(time.Second)
	c.Errorf(field, "%v with %d %s for %v means about %.0f faults; a run plays at most %d, so use a %s of at least %v (or fewer %s, or a shorter duration)",
		mean, sources, what, d, expected, MaxFaults, name, least, what)
}

// result joins the problems found, at most maxErrors of them.
func (c *Check) result() error {
	if n := len(c.errs) - maxErrors; n > 0 {
		c.errs = append(c.errs[:maxErrors], posError(c.s.Source, c.Line(""), "", fmt.Sprintf("%d more problems not shown; fix the ones above first", n)))
	}
	return errors.Join(c.errs...)
}
