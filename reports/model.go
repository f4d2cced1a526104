// Package reports holds the result of an opcert run and writes it as JUnit
// XML (for CI), JSON (for machines) and Markdown (for people, and for the
// terminal summary).
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
)

// Report is everything one `opcert run` found.
type Report struct {
	Tool        string        `json:"tool"`
	StartedAt   time.Time     `json:"startedAt"`
	Wall        time.Duration `json:"wallNanos"`
	Environment Environment   `json:"environment"`
	Runs        []Run         `json:"runs"`
}

// Environment describes the API server the runs used.
type Environment struct {
	KubeVersion string        `json:"kubeVersion"`
	EtcdVersion string        `json:"etcdVersion"`
	Assets      string        `json:"assets"`
	Startup     time.Duration `json:"startupNanos"`
}

// Run is one scenario against one set of subjects.
type Run struct {
	Scenario    string            `json:"scenario"`
	Description string            `json:"description,omitempty"`
	Subjects    map[string]string `json:"subjects"` // role -> subject
	Virtual     time.Duration     `json:"virtualNanos"`
	Wall        time.Duration     `json:"wallNanos"`
	APICalls    int               `json:"apiCalls"`
	MedianCall  time.Duration     `json:"medianCallNanos"`
	Timeline    string            `json:"timeline,omitempty"` // path relative to the report directory
	Error       string            `json:"error,omitempty"`    // the run could not complete
	Cases       []Case            `json:"cases"`
}

// Case is one rule (or one scenario expectation) judged on one run.
type Case struct {
	Rule      string           `json:"rule"`    // STALE-001, or EXPECT for scenario expectations
	Section   string           `json:"section"` // seed file and section, e.g. "000 §Proposal"
	Statement string           `json:"statement"`
	Role      string           `json:"role"` // the role whose subject is judged
	Status    Status           `json:"status"`
	Message   string           `json:"message,omitempty"`
	Evidence  []timeline.Event `json:"evidence,omitempty"`
	Measures  []Measure        `json:"measures,omitempty"`
}

// Measure is a latency distribution a rule measured, e.g. the time from a
// stale challenge to the operator's answer, for one object.
type Measure struct {
	Name   string        `json:"name"`
	Count  int           `json:"count"`
	P50    time.Duration `json:"p50Nanos"`
	P99    time.Duration `json:"p99Nanos"`
	Max    time.Duration `json:"maxNanos"`
	Budget time.Duration `json:"budgetNanos,omitempty"`
}

// Failed tells whether any run failed a case or could not complete.
func (r *Report) Failed() bool {
	for _, run := range r.Runs {
		if run.verdict() == "FAIL" {
			return true
		}
	}
	return false
}
