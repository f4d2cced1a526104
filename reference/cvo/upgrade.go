package cvo

import (
	"fmt"
	"sort"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
)

// Blocker is a ClusterOperator that reports Upgradeable=False, with what
// must be fixed (001 §What should an operator report, honored by components 4).
type Blocker struct {
	// Name is the ClusterOperator's, Reason and Message its Upgradeable condition's.
	Name, Reason, Message string
}

// Blockers are the live ClusterOperators that report Upgradeable=False,
// by name.
func Blockers(c Cluster) []Blocker {
	var out []Blocker
	for name, st := range c.ClusterOperators {
		if u := find(st.Conditions, configv1.OperatorUpgradeable); u != nil && u.Status == configv1.ConditionFalse {
			out = append(out, Blocker{Name: name, Reason: u.Reason, Message: u.Message})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// upgradeable is the ClusterVersion's Upgradeable condition: True with no
// message, or False naming each blocker with its message, in the upstream's
// words less "between minor or major versions", since this reference
// refuses every upgrade (001 §What should an operator report, guarantees to
// components 3 says no more).
func upgradeable(b []Blocker) configv1.ClusterOperatorStatusCondition {
	switch len(b) {
	case 0:
		return cond(configv1.OperatorUpgradeable, configv1.ConditionTrue, "", "")
	case 1:
		reason := b[0].Reason
		if reason == "" {
			reason = "ClusterOperatorNotUpgradeable"
		}
		return cond(configv1.OperatorUpgradeable, configv1.ConditionFalse, reason,
			fmt.Sprintf("Cluster operator %s should not be upgraded: %s", b[0].Name, said(b[0].Message)))
	}
	lines := make([]string, len(b))
	for i, x := range b {
		lines[i] = fmt.Sprintf("Cluster operator %s should not be upgraded: ", x.Name)
		if x.Reason != "" {
			lines[i] += x.Reason + ": "
		}
		lines[i] += said(x.Message)
	}
	return cond(configv1.OperatorUpgradeable, configv1.ConditionFalse, "ClusterOperatorsNotUpgradeable",
		"Multiple cluster operators should not be upgraded:\n* "+strings.Join(lines, "\n* "))
}

// said stands in for a blocker's missing message, which breaks honored 4.
func said(msg string) string {
	if msg == "" {
		return "it gives no message"
	}
	return msg
}

// Refusal is an upgrade refused while ClusterOperators report
// Upgradeable=False (001 §What should an operator report, guarantees to
// components 3).
type Refusal struct {
	// Version is the version the refused upgrade asked for.
	Version string
	// Blockers are the ClusterOperators that refuse it, by name.
	Blockers []Blocker
}

// Error is the refusal as the ClusterVersion reports it: the version
// refused and the blockers' message.
func (r *Refusal) Error() string {
	return fmt.Sprintf("Upgrade to %s refused: %s", r.Version, upgradeable(r.Blockers).Message)
}

// Upgrade asks for the release to and its payload's tasks. While any live
// ClusterOperator reports Upgradeable=False it returns s unchanged and a
// *Refusal naming them; asking for the desired version again changes
// nothing. Otherwise the sweep starts over on the new payload, and the
// next Step opens its history entry.
func Upgrade(s State, c Cluster, to configv1.Release, tasks []Task) (State, error) {
	if to.Version == s.Status.Desired.Version && to.Image == s.Status.Desired.Image {
		return s, nil
	}
	if b := Blockers(c); len(b) > 0 {
		return s, &Refusal{Version: to.Version, Blockers: b}
	}
	s.Status = *s.Status.DeepCopy()
	s.Status.Desired = to
	s.Tasks, s.Done, s.WaitingSince, s.Failure = tasks, 0, time.Time{}, nil
	return s, nil
}
