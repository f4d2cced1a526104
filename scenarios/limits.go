package scenarios

import (
	"errors"
	"fmt"
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

	// maxScenarioName keeps report file names (timelines/NN-<name>.jsonl)
	// and JUnit test names short.
	maxScenarioName = 40

	// runPrefixRoom is what a run may prepend to every object name it sends
	// to the API server: "r01-" today (4 bytes), with room to grow.
	runPrefixRoom = 8
	// maxOperatorName bounds an operator's name once fleets expand: the name
	// of its ClusterOperator, a DNS-1123 label (63) after the run prefix.
	maxOperatorName = 63 - runPrefixRoom
	// maxCreateName bounds a create object's metadata.name: a DNS-1123
	// subdomain (253), the longest name most kinds accept, after the prefix.
	maxCreateName = 253 - runPrefixRoom

	// The ClusterOperator CRD sets no maxLength on conditions, so the API
	// server would take any size; these are metav1.Condition's limits, which
	// the rest of Kubernetes holds conditions to. (The type is one of five
	// names, so it needs no length limit.)
	maxReason  = 1024
	maxMessage = 32768

	// maxOperators bounds the simulated processes of a run, fleets expanded:
	// each is a ClusterOperator and an actor, and chaos draws faults for each.
	maxOperators = 500
	// maxSteps and maxExpects bound a scenario's script; the built-ins use
	// a handful. Each expectation is an API read and a line of the report.
	maxSteps   = 10000
	maxExpects = 1000

	// maxDepth bounds the nesting of a create object's mappings and lists;
	// real objects stay under 10.
	maxDepth = 32
	// maxObjectBytes bounds one create object encoded as JSON, as it is sent.
	// The API server refuses requests over 3 MiB and etcd writes over
	// 1.5 MiB, and what etcd stores adds metadata and managed fields to what
	// was sent: 1 MiB keeps a loaded object clear of both.
	maxObjectBytes = 1 << 20
	// maxCreateBytes bounds all create objects together: aliases can repeat
	// a large object in many steps, and each copy is written to etcd.
	maxCreateBytes = 8 << 20

	// maxDuration bounds the virtual time of a run: 30 days.
	maxDuration = 30 * 24 * time.Hour
	// minMeanUptime and maxFaults bound chaos: Plan draws about
	// operators x duration / meanUptime faults and the run plays each one.
	minMeanUptime = time.Second
	maxFaults     = 100000

	// maxErrors bounds what one load reports; past it the user has enough
	// to fix first.
	maxErrors = 50
)

// mib writes a byte count that is a whole number of MiB for messages.
func mib(n int) string { return fmt.Sprintf("%d MiB", n>>20) }

// fleetSize counts the operators once fleets expand, without expanding them:
// a small file can declare many large fleets. A count out of range counts
// as one; checkOperators reports it.
func (c *checker) fleetSize() bool {
	for _, o := range c.s.Operators {
		if o.Count > 0 && o.Count <= maxOperators {
			c.members += o.Count
		} else {
			c.members++
		}
	}
	if c.members > maxOperators {
		c.errorf("operators", "%d operators once fleets expand; a run has at most %d, so use fewer or smaller fleets", c.members, maxOperators)
		return false
	}
	return true
}

// steps checks the length of the script; its steps are checked one by one
// only within it.
func (c *checker) steps() bool {
	if n := len(c.s.Steps); n > maxSteps {
		c.errorf("steps", "%d steps; a scenario has at most %d, so split it", n, maxSteps)
		return false
	}
	expects := 0
	for _, st := range c.s.Steps {
		if st.Expect != nil {
			expects++
		}
	}
	if expects > maxExpects {
		c.errorf("steps", "%d expect steps; a scenario checks at most %d, so keep the checks that prove something", expects, maxExpects)
	}
	return true
}

// faults bounds the faults chaos draws: about operators x duration /
// meanUptime, each of which the run plays.
func (c *checker) faults(meanUptime time.Duration) {
	d := c.s.Duration.Duration
	if d <= 0 || d > maxDuration || c.members > maxOperators {
		return // reported already
	}
	expected := float64(c.members) * float64(d) / float64(meanUptime)
	if expected <= maxFaults {
		return
	}
	// Rounded up to the nanosecond, then to the second, for the message.
	total := time.Duration(c.members) * d // at most 500 x 720h: no overflow
	least := ((total+maxFaults-1)/maxFaults + time.Second - 1).Truncate(time.Second)
	c.errorf("chaos.meanUptime", "%v with %d operators for %v means about %.0f faults; a run plays at most %d, so use a meanUptime of at least %v (or fewer operators, or a shorter duration)",
		meanUptime, c.members, d, expected, maxFaults, least)
}

// result joins the problems found, at most maxErrors of them.
func (c *checker) result() error {
	if n := len(c.errs) - maxErrors; n > 0 {
		c.errs = append(c.errs[:maxErrors], posError(c.s.Source, c.line(""), "", fmt.Sprintf("%d more problems not shown; fix the ones above first", n)))
	}
	return errors.Join(c.errs...)
}
