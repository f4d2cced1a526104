// Package scenarios holds the scenario format, its strict loader and the
// registry through which each mechanism adds its part of the format. A
// scenario builds a small world (simulated operators, nodes, the objects
// they own), then acts on it at exact virtual times: faults, operand
// changes, expectations. It says nothing about which implementation fills
// each role: that is the run's choice of subjects.
//
// The format is shared where it can be: name, mechanism, duration, steps in
// time order with at and advance, create (any Kubernetes object), expect
// (a condition of any object, read as unstructured) and apiErrors (a
// role's API calls fail for a while). The rest belongs to the
// mechanism named by the file (Kind): its top-level fields (World), its step
// actions, its condition types and its checks. Errors always read
// file:line: field.path: what is wrong; what to do.
package scenarios

import "time"

// Scenario is one loaded scenario file.
type Scenario struct {
	// Name names the scenario in reports and in opcert run --scenario:
	// lowercase letters, digits and '-', at most 40.
	Name string `yaml:"name"`
	// Description says what the scenario proves.
	Description string `yaml:"description,omitempty"`
	// Mechanism is the mechanism whose Kind reads the rest of the file.
	Mechanism string `yaml:"mechanism"`
	// Duration is the virtual time the run covers, more than 0, at most
	// 720h.
	Duration Duration `yaml:"duration"`
	// Steps are what happens, in time order.
	Steps []Step `yaml:"steps,omitempty"`

	// World holds the mechanism's own top-level fields, decoded into a new
	// value of its Kind's World type (a pointer to it); nil for a Kind with
	// no World.
	World any `yaml:"-"`
	// Source is where the scenario came from (a path, or builtin:<file>).
	Source string `yaml:"-"`
}

// Step is one action at one virtual time. Exactly one action is set, except
// for a step that only advances the cursor.
type Step struct {
	// At is the step's time from the start. Without it a step happens at the
	// time of the step before it (plus Advance).
	At *Duration `yaml:"at,omitempty"`
	// Advance moves the step cursor forward before the action.
	Advance *Duration `yaml:"advance,omitempty"`

	// Create creates a Kubernetes object: apiVersion, kind and
	// metadata.name at least.
	Create map[string]any `yaml:"create,omitempty"`
	// Expect checks a condition of an object; the run fails if it does
	// not hold.
	Expect *Expect `yaml:"expect,omitempty"`
	// APIErrors fails a role's API calls for a while (faults.go).
	APIErrors *APIErrors `yaml:"apiErrors,omitempty"`
	// Perturb perturbs what a role sees, or crashes it (perturb.go).
	Perturb *Perturb `yaml:"perturb,omitempty"`

	// Action is the name of the mechanism's action this step takes (empty
	// for create, expect and advance-only steps) and Arg its value, of the
	// type the Kind registers for it (a pointer for structs).
	Action string `yaml:"-"`
	Arg    any    `yaml:"-"` // the action's value (Action)

	// Time is the resolved offset from the start (set by the loader).
	Time time.Duration `yaml:"-"`
	// Line is where the step starts in its file, for messages.
	Line int `yaml:"-"`
}

// Expect checks one condition of one object, read from the API server as
// unstructured. Kind and APIVersion default to the mechanism's (Kind.Expects);
// the object's name gets the run's prefix, as every name the scenario gives.
// Unset checks are not made; at least one must be set.
type Expect struct {
	// APIVersion is the object's (default: the mechanism's, with Kind).
	APIVersion string `yaml:"apiVersion,omitempty"`
	// Kind is the object's (default: the mechanism's, Kind.Expects).
	Kind string `yaml:"kind,omitempty"`
	// Namespace is the object's, for a namespaced kind.
	Namespace string `yaml:"namespace,omitempty"`
	// Object is the object's name.
	Object string `yaml:"object"`
	// Condition is the type of the condition checked.
	Condition string `yaml:"condition"`
	// Status is the status it must have: True, False or Unknown.
	Status string `yaml:"status,omitempty"`
	// Reason is the reason it must have.
	Reason string `yaml:"reason,omitempty"`
	// Message is the message it must have, whole.
	Message string `yaml:"message,omitempty"`
	// MessagePrefix is how its message must start.
	MessagePrefix string `yaml:"messagePrefix,omitempty"`
}

// Condition is a status condition as scenarios write it, for the mechanisms
// whose worlds report conditions (Check.Condition validates one).
type Condition struct {
	// Type is the condition's type, one the mechanism's worlds report.
	Type string `yaml:"type"`
	// Status is True, False or Unknown.
	Status string `yaml:"status"`
	// Reason is a CamelCase word (letters, digits, '_', ',' and ':'), at
	// most 1024 bytes.
	Reason string `yaml:"reason"`
	// Message is for a human, at most 32768 bytes.
	Message string `yaml:"message,omitempty"`
}

// Chaos kills processes at random, reproducibly from Seed: each process's
// time to its next death is drawn from an exponential distribution with mean
// MeanUptime, and it stays dead for a time drawn uniformly from Downtime.
type Chaos struct {
	// Seed makes the faults reproducible: the same seed, the same faults.
	Seed uint64 `yaml:"seed"`
	// MeanUptime is the mean time from a start to the next fault, more
	// than 0 (and few enough faults over the run: Check.Faults).
	MeanUptime Duration `yaml:"meanUptime"`
	// Downtime is how long a process stays down, drawn uniformly.
	Downtime Range `yaml:"downtime"`
	// Hang is the fraction (0..1) of faults that hang the process instead of killing it.
	Hang float64 `yaml:"hang,omitempty"`
}

// Range is a closed interval of durations.
type Range struct {
	// Min is the shortest duration, more than 0.
	Min Duration `yaml:"min"`
	// Max is the longest, no shorter than Min.
	Max Duration `yaml:"max"`
}

// Duration is a time.Duration written as Go writes it ("10m", "1h30m", "45s").
type Duration struct{ time.Duration }
