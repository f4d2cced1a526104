// Package scenarios holds the scenario format, its strict loader and the
// built-in scenario library (embedded YAML). A scenario builds a small world
// (simulated operators and the objects they own), then acts on it at exact
// virtual times: faults (kill, hang), operand changes (setCondition) and
// expectations. It says nothing about which implementation fills each role:
// that is the run's choice of subjects.
package scenarios

import "time"

// Scenario is one loaded scenario file.
type Scenario struct {
	Name        string     `yaml:"name"`
	Description string     `yaml:"description,omitempty"`
	Mechanism   string     `yaml:"mechanism"` // seed short name, e.g. "stale"
	Duration    Duration   `yaml:"duration"`  // virtual time the run covers
	Operators   []Operator `yaml:"operators,omitempty"`
	Steps       []Step     `yaml:"steps,omitempty"`
	Chaos       *Chaos     `yaml:"chaos,omitempty"`

	// Source is where the scenario came from (a path, or builtin:<file>).
	Source string `yaml:"-"`
}

// Operator is a simulated operator process that owns one ClusterOperator of
// the same name and keeps its conditions there.
type Operator struct {
	Name string `yaml:"name"`
	// Count > 0 declares a fleet: Count operators named <name>-01, <name>-02...
	Count int `yaml:"count,omitempty"`
	// AnswerDelay is how long the operator takes to put its conditions back
	// after someone else changed them (a stale challenge). Default 1s.
	AnswerDelay *Duration   `yaml:"answerDelay,omitempty"`
	Conditions  []Condition `yaml:"conditions"`
	// Stopped operators are not started at time zero (restartOperator starts them).
	Stopped bool `yaml:"stopped,omitempty"`
}

// Condition is a status condition an operator reports.
type Condition struct {
	Type    string `yaml:"type"`
	Status  string `yaml:"status"`
	Reason  string `yaml:"reason"`
	Message string `yaml:"message,omitempty"`
}

// Step is one action at one virtual time. Exactly one action field is set,
// except for a step that only advances the cursor.
type Step struct {
	// At is the step's time from the start. Without it a step happens at the
	// time of the step before it (plus Advance).
	At *Duration `yaml:"at,omitempty"`
	// Advance moves the step cursor forward before the action.
	Advance *Duration `yaml:"advance,omitempty"`

	Create            map[string]any `yaml:"create,omitempty"` // a Kubernetes object
	KillOperator      string         `yaml:"killOperator,omitempty"`
	RestartOperator   string         `yaml:"restartOperator,omitempty"`
	HangOperator      string         `yaml:"hangOperator,omitempty"`
	ReconnectOperator string         `yaml:"reconnectOperator,omitempty"`
	SetCondition      *SetCondition  `yaml:"setCondition,omitempty"`
	SlowOperator      *SlowOperator  `yaml:"slowOperator,omitempty"`
	Expect            *Expect        `yaml:"expect,omitempty"`

	// Time is the resolved offset from the start (set by the loader).
	Time time.Duration `yaml:"-"`
	// Line is where the step starts in its file, for messages.
	Line int `yaml:"-"`
}

// SetCondition changes what an operator reports: its operand moved.
type SetCondition struct {
	Operator  string `yaml:"operator"`
	Condition `yaml:",inline"`
}

// SlowOperator changes how long an operator takes to answer from now on,
// across restarts (it got slow: a long resync, a starved process).
type SlowOperator struct {
	Operator    string   `yaml:"operator"`
	AnswerDelay Duration `yaml:"answerDelay"`
}

// Expect checks one condition of one ClusterOperator. Unset fields are not
// checked; at least one must be set.
type Expect struct {
	Object        string `yaml:"object"`
	Condition     string `yaml:"condition"`
	Status        string `yaml:"status,omitempty"`
	Reason        string `yaml:"reason,omitempty"`
	Message       string `yaml:"message,omitempty"`
	MessagePrefix string `yaml:"messagePrefix,omitempty"`
}

// Chaos kills operators at random, reproducibly from Seed: each operator's
// time to its next death is drawn from an exponential distribution with mean
// MeanUptime, and it stays dead for a time drawn uniformly from Downtime.
type Chaos struct {
	Seed       uint64   `yaml:"seed"`
	MeanUptime Duration `yaml:"meanUptime"`
	Downtime   Range    `yaml:"downtime"`
	// Hang is the fraction (0..1) of faults that hang the operator instead of killing it.
	Hang float64 `yaml:"hang,omitempty"`
}

// Range is a closed interval of durations.
type Range struct {
	Min Duration `yaml:"min"`
	Max Duration `yaml:"max"`
}

// Duration is a time.Duration written as Go writes it ("10m", "1h30m", "45s").
type Duration struct{ time.Duration }
