// Package reports holds the result of an opcert run and writes it as JUnit
// XML (for CI), JSON (for machines), Markdown (for people, and for the
// terminal summary) and one self-contained HTML page with the runs'
// timelines drawn (html.go).
package reports

import (
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// Status is the verdict of one case.
type Status string

// Verdicts.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip" // the rule had nothing to judge in this run
	// Warn is a failure of a convention rule (a message's style) in a run
	// that is not strict: reported with its evidence, counted apart, and
	// failing nothing (the exit code stays 0). A strict run reports it as
	// Fail.
	Warn Status = "warn"
)

// Report is everything one `opcert run` found.
type Report struct {
	Tool        string        `json:"tool"`               // the command that wrote it ("opcert run", "opcert certify")
	StartedAt   time.Time     `json:"startedAt,omitzero"` // when it started, by the wall clock
	Wall        time.Duration `json:"wallNanos"`          // how long it took, by the wall clock
	Environment Environment   `json:"environment"`        // the API server the runs used
	Runs        []Run         `json:"runs"`               // one per scenario and set of subjects
	// Skipped are the built-in scenarios the command left out, before
	// anything started, because they cannot be played the way it played
	// (real time, a time scale): they passed nothing.
	Skipped []Skipped `json:"skipped,omitempty"`
	// Missing are the shards (INDEX/COUNT) a merge of a sharded run was
	// not given: none of their runs is here, so the report is INCOMPLETE,
	// never a pass.
	Missing []string `json:"missingShards,omitempty"`
	// Judging is how the command judged its runs: what opcert analyze
	// needs to judge their timelines again as they were judged (nil in a
	// report written before opcert kept it).
	Judging *Judging `json:"judging,omitempty"`
}

// Skipped is a scenario left out of a report's runs, and why.
type Skipped struct {
	Scenario  string `json:"scenario"`  // the scenario's name
	Mechanism string `json:"mechanism"` // its mechanism
	Why       string `json:"why"`       // what the command could not do with it
}

// Judging is what a command's rules were built and judged with beyond
// each run's own settings (its mechanism, time scale, tolerance).
type Judging struct {
	// Flags are the mechanisms' flags the command was given (thresholds,
	// profiles, --detector-manager, --reaction-bound), as command-line
	// arguments "--name=value"; the others had their defaults.
	Flags []string `json:"flags,omitempty"`
	// Strict says the convention rules' failures failed (--strict).
	Strict bool `json:"strict,omitempty"`
}

// Normalize leaves out what differs between two runs of the same input:
// the wall-clock fields (when it started, how long everything took, the
// median API call) and where the API server's binaries are. What is left
// depends only on the scenarios, the subjects and their seeds, so two
// normalized reports of the same input are the same bytes in every format
// (opcert run --reproducible; a test holds it, with 2, 4 and 8 workers).
func (r *Report) Normalize() {
	r.StartedAt, r.Wall = time.Time{}, 0
	r.Environment.Startup, r.Environment.Assets = 0, ""
	for i := range r.Runs {
		r.Runs[i].Wall, r.Runs[i].MedianCall = 0, 0
	}
}

// Environment describes the API server the runs used.
type Environment struct {
	KubeVersion string        `json:"kubeVersion"`  // the kube-apiserver's version
	EtcdVersion string        `json:"etcdVersion"`  // etcd's version
	Assets      string        `json:"assets"`       // the directory of the binaries started
	Startup     time.Duration `json:"startupNanos"` // the time to start (or reach) it
	// Cluster is the cluster a run on one (cluster mode) used: its
	// server and kubeconfig context; Startup is then the time to reach it.
	Cluster string `json:"cluster,omitempty"`
}

// Run is one scenario against one set of subjects.
type Run struct {
	Scenario string `json:"scenario"` // the scenario's name
	// Mechanism is the mechanism whose world played the run, or whose
	// rules judged a recording.
	Mechanism   string            `json:"mechanism,omitempty"`
	Description string            `json:"description,omitempty"` // the scenario's
	Subjects    map[string]string `json:"subjects"`              // role -> subject
	Virtual     time.Duration     `json:"virtualNanos"`          // the scenario time it covered
	Wall        time.Duration     `json:"wallNanos"`             // how long it took, by the wall clock
	APICalls    int               `json:"apiCalls"`              // the calls its actors made to the API server
	MedianCall  time.Duration     `json:"medianCallNanos"`       // the median time of one, by the wall clock
	Timeline    string            `json:"timeline,omitempty"`    // path relative to the report directory
	Error       string            `json:"error,omitempty"`       // the run could not complete
	// Stopped says why a run ended before its scenario's duration (empty
	// for a complete run); Reached is the virtual time it completed.
	Stopped Stop          `json:"stopped,omitempty"`
	Reached time.Duration `json:"reachedNanos"` // the virtual time it completed
	Cases   []Case        `json:"cases"`        // the verdict of each rule, and of the scenario's expectations
	// Start is the instant evidence offsets count from: zero for the
	// simulator's epoch, the recording's start for a recorded timeline.
	Start time.Time `json:"start,omitzero"`
	// Recording describes a run judged from a recording rather than
	// played (opcert watch, opcert analyze).
	Recording *Recording `json:"recording,omitempty"`
	// Processes are the executables a real-time run started (process
	// mode) or the Deployments it scaled (cluster mode: Command
	// "deployment NS/NAME", no Log), and how each ended.
	Processes []Process `json:"processes,omitempty"`
	// TimeScale is what the scenario's times were multiplied by in real
	// time (0 or 1: none).
	TimeScale float64 `json:"timeScale,omitempty"`
	// Tolerance is the slack the rules allowed on deadlines in a real-time
	// run (conformance.RealtimeTolerance); zero in virtual time. A
	// recording's is its Recording's.
	Tolerance time.Duration `json:"toleranceNanos,omitempty"`
	// NotJudged says why a run that failed nothing proved nothing of its
	// subjects either: a subject under test never acted or ended without
	// being asked, or no rule could judge the run. Such a run is NOT
	// JUDGED, never a pass (opcert exits 4).
	NotJudged []string `json:"notJudged,omitempty"`
	// Reaction is the reaction bound the rules judged with: how long a
	// subject could take to act on a change it could see (zero: none
	// judged).
	Reaction time.Duration `json:"reactionBoundNanos,omitempty"`
	// Redacted is how many secret-looking values (an executable's
	// --token=..., a URL's password) Subjects and the Processes' commands
	// hide; the reports say so.
	Redacted int `json:"redacted,omitempty"`
}

// Process is one instance of a role played by an executable: its log,
// and how each of its processes ended, in order (one per start).
type Process struct {
	Name    string   `json:"name"`    // the instance, as the timeline names its actor
	Role    string   `json:"role"`    // the role it played
	Command string   `json:"command"` // how it was started, secrets hidden
	Log     string   `json:"log"`     // the file its output went to
	Endings []string `json:"endings"` // how each of its processes ended (exit code, signal)
	// Unasked is how many of its processes ended without opcert ending
	// them (a scenario's kill, the end of the run): an operator that
	// exits on a flag error, or crashes.
	Unasked int `json:"unasked,omitempty"`
}

// Stop is why a run ended early. Only StopSubject runs are judged (up to
// the instant they reached): the others say nothing about the subjects.
type Stop string

// Reasons a run stops early.
const (
	// StopSubject: an actor broke the run (it livelocked, or could not be
	// built); judged up to the last instant the run completed.
	StopSubject Stop = "subject"
	// StopInterrupted: a signal (Ctrl-C, SIGTERM...) ended opcert.
	StopInterrupted Stop = "interrupted"
	// StopEnvironment: the API server or etcd stopped serving.
	StopEnvironment Stop = "environment"
	// StopScenario: the API server refused a step of the scenario.
	StopScenario Stop = "scenario"
)

// Case is one rule (or one scenario expectation) judged on one run.
type Case struct {
	Rule      string           `json:"rule"`               // STALE-001, or EXPECT for scenario expectations
	Section   string           `json:"section"`            // seed file and section, e.g. "000 §Proposal"
	Statement string           `json:"statement"`          // what the rule asks, as opcert rules prints it
	Role      string           `json:"role"`               // the role whose subject is judged
	Status    Status           `json:"status"`             // pass, fail, skip or warn
	Message   string           `json:"message,omitempty"`  // what was found, or why nothing could be judged
	Evidence  []timeline.Event `json:"evidence,omitempty"` // the timeline's events that show a failure
	Measures  []Measure        `json:"measures,omitempty"` // latencies the rule measured
}

// Measure is a latency distribution a rule measured, e.g. the time from a
// stale challenge to the operator's answer, for one object.
type Measure struct {
	Name   string        `json:"name"`                  // what was measured, and of which object
	Count  int           `json:"count"`                 // how many times
	P50    time.Duration `json:"p50Nanos"`              // the median
	P99    time.Duration `json:"p99Nanos"`              // the 99th percentile
	Max    time.Duration `json:"maxNanos"`              // the longest
	Budget time.Duration `json:"budgetNanos,omitempty"` // the most the rule allows, if it bounds it
}

// Verdict is the report's: ERROR when a run's environment stopped it,
// else FAIL when a run failed, else INCOMPLETE when shards are missing,
// else NOT JUDGED when a run proved nothing of its subjects, else PASS.
func (r *Report) Verdict() string {
	switch {
	case r.Errored():
		return "ERROR"
	case r.Failed():
		return "FAIL"
	case len(r.Missing) > 0:
		return Incomplete
	case r.Unjudged():
		return NotJudged
	}
	return "PASS"
}

// Incomplete is the verdict of a merged report some shards of which are
// missing.
const Incomplete = "INCOMPLETE"

// Failed tells whether any run failed a case or was broken by its subjects.
func (r *Report) Failed() bool { return r.any("FAIL") }

// Unjudged tells whether any run proved nothing of its subjects (NOT
// JUDGED).
func (r *Report) Unjudged() bool { return r.any(NotJudged) }

// Errored tells whether any run was stopped by its environment.
func (r *Report) Errored() bool { return r.any("ERROR") }

func (r *Report) any(verdict string) bool {
	for _, run := range r.Runs {
		if run.verdict() == verdict {
			return true
		}
	}
	return false
}
