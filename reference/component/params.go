package component

import (
	"slices"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// Params are the operator's identity and thresholds.
type Params struct {
	// Name is its ClusterOperator's, as the messages name the component.
	Name string
	// Version is the operator's own: versions[name=operator] once reached.
	Version string
	// OperandVersions are the versions its operands run, by operand name;
	// an operand not listed runs Version.
	OperandVersions map[string]string
	// Degraded is the condition reporting failure: configv1.OperatorDegraded
	// or its older name Failing.
	Degraded configv1.ClusterStatusConditionType
	// StuckAfter is how long a rollout may make no progress before the
	// operator reports Degraded (default 10m).
	StuckAfter time.Duration
	// RetryAfter is when to apply again after an ApplyError (default 1m).
	RetryAfter time.Duration
	// NodePercent is the share of a DaemonSet's nodes that must be ready
	// at the target for it to count as rolled out (default 100).
	NodePercent int
	// Flaws are deliberate deviations from the seed; none in the reference.
	Flaws []Flaw
}

// DefaultParams are the reference operator's for a component and version.
func DefaultParams(name, version string) Params {
	return Params{Name: name, Version: version}.withDefaults()
}

// withDefaults fills what is unset, so a zero threshold never means
// "stuck at once".
func (p Params) withDefaults() Params {
	if p.Degraded == "" {
		p.Degraded = configv1.OperatorDegraded
	}
	if p.StuckAfter <= 0 {
		p.StuckAfter = 10 * time.Minute
	}
	if p.RetryAfter <= 0 {
		p.RetryAfter = time.Minute
	}
	if p.NodePercent <= 0 || p.NodePercent > 100 {
		p.NodePercent = 100
	}
	return p
}

func (p Params) has(f Flaw) bool { return slices.Contains(p.Flaws, f) }

// operandVersion is the version operand name must run.
func (p Params) operandVersion(name string) string {
	if v, ok := p.OperandVersions[name]; ok && v != "" {
		return v
	}
	return p.Version
}

// Flaw is a deliberate deviation from seed 001, for the broken subjects
// that prove the rules can fail.
type Flaw string

// The flaws, each a single deviation (flaw_test.go shows it is the only one).
const (
	// EarlyVersion reports the new versions as soon as every operand's spec
	// asks for them, while old pods still run (breaks 001 §Version
	// reporting during an upgrade).
	EarlyVersion Flaw = "early-version"
	// NeverProgressing never sets Progressing True (breaks 001 §What should
	// an operator report, honored by components 3).
	NeverProgressing Flaw = "never-progressing"
	// EarlyAvailable reports Available as soon as every operand has a ready
	// pod, before the first rollout completes (breaks honored by
	// components 1).
	EarlyAvailable Flaw = "early-available"
	// SplitWrite writes the conditions and the versions in two updates,
	// conditions first (breaks 001 §Status).
	SplitWrite Flaw = "split-write"
	// SilentUpgradeable sets Upgradeable False with no message (breaks
	// honored by components 4).
	SilentUpgradeable Flaw = "silent-upgradeable"
	// SilentDegraded sets Degraded (or Failing) True with no message
	// (breaks 001 §Conditions).
	SilentDegraded Flaw = "silent-degraded"
	// StaleCompletion keeps Progressing's lastTransitionTime at an
	// upgrade's completion (breaks 001 §Version reporting during an
	// upgrade: "MUST set lastTransitionTime on Progressing to the current
	// time").
	StaleCompletion Flaw = "stale-completion"
)

// Flaws lists every flaw, for a registry of broken subjects.
func Flaws() []Flaw {
	return []Flaw{EarlyVersion, NeverProgressing, EarlyAvailable, SplitWrite, SilentUpgradeable, SilentDegraded, StaleCompletion}
}
