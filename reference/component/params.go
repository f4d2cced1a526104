package component

import (
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

// operandVersion is the version operand name must run.
func (p Params) operandVersion(name string) string {
	if v, ok := p.OperandVersions[name]; ok && v != "" {
		return v
	}
	return p.Version
}
