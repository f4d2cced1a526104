package olm

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/probe"
)

// Profile is the gate OLM applies to an Upgrade (its spec.gate).
type Profile string

const (
	// ProfileProbe (the default) reads the Probe named after the current
	// CSV: the seed's gate (002 §Design Details).
	ProfileProbe Profile = "probe"
	// ProfileOperatorCondition reads the OperatorCondition named after the
	// current CSV: what OLM shipped (docs/upstream.md, seed 002).
	ProfileOperatorCondition Profile = "operatorcondition"
)

// An Upgrade's phases and reasons. Pending while blocked; Succeeded is
// final. The reasons are OLM's (docs/upstream.md, seed 002) where it has one.
const (
	PhasePending   = "Pending"
	PhaseSucceeded = "Succeeded"

	ReasonUpgradeAllowed                  = "UpgradeAllowed"
	ReasonProbeNotUpgradeable             = "ProbeNotUpgradeable"
	ReasonOperatorConditionNotUpgradeable = "OperatorConditionNotUpgradeable"
)

// Upgrade is an Upgrade's spec: from the current CSV to the new one,
// through a gate.
type Upgrade struct {
	// From and To name the current CSV and the one the upgrade goes to.
	From, To string
	// Gate is what the gate reads to decide: the Probe or the OperatorCondition.
	Gate Profile
}

// UpgradeStatus is what the gate writes to an Upgrade.
type UpgradeStatus struct {
	// Phase is PhasePending or PhaseSucceeded; Reason and Message say why.
	Phase, Reason, Message string
}

// OperatorCondition is what the gate reads of an OperatorCondition
// (operators.coreos.com/v2).
type OperatorCondition struct {
	// Generation is metadata.generation, which a condition's observedGeneration must match.
	Generation int64
	Overrides  []metav1.Condition // spec.overrides
	Conditions []metav1.Condition // status.conditions
}

// Gated is what the gate reads for one Upgrade: the Probe and the
// OperatorCondition named after its From, nil when absent.
type Gated struct {
	// Probe is the Probe named after the Upgrade's From; nil when absent.
	Probe *probe.Probe
	// OperatorCondition is the one named after the Upgrade's From; nil when absent.
	OperatorCondition *OperatorCondition
}

// Decide is the gate's decision on u: Pending with the reason and message
// that say what blocks it, or Succeeded. An unknown gate is an error.
func Decide(u Upgrade, g Gated, flaw GateFlaw) (UpgradeStatus, error) {
	var blocked string
	switch u.Gate {
	case ProfileProbe, "":
		blocked = probeBlocks(u, g.Probe, flaw)
	case ProfileOperatorCondition:
		blocked = operatorConditionBlocks(g.OperatorCondition, flaw)
	default:
		return UpgradeStatus{}, fmt.Errorf("upgrade to %s: unknown gate %q: give %q or %q", u.To, u.Gate, ProfileProbe, ProfileOperatorCondition)
	}
	switch {
	case blocked == "" || flaw == IgnoresProbe:
		return UpgradeStatus{Phase: PhaseSucceeded, Reason: ReasonUpgradeAllowed,
			Message: fmt.Sprintf("Upgraded from %s to %s", u.From, u.To)}, nil
	case u.Gate == ProfileOperatorCondition:
		return UpgradeStatus{Phase: PhasePending, Reason: ReasonOperatorConditionNotUpgradeable, Message: blocked}, nil
	default:
		return UpgradeStatus{Phase: PhasePending, Reason: ReasonProbeNotUpgradeable, Message: blocked}, nil
	}
}

// probeBlocks is the Probe gate: blocked iff the Probe has Upgradeable
// False (002 §Design Details). The message names each blocking CR with
// its expression, from the status's probe resources; a Probe its operator
// writes (002 §Writing to the Probe Resource Directly) lists none, and its
// Upgradeable message is quoted instead. "" means allowed.
func probeBlocks(u Upgrade, p *probe.Probe, flaw GateFlaw) string {
	if p == nil {
		return ""
	}
	c := meta.FindStatusCondition(p.Status.Conditions, ConditionUpgradeable)
	if c == nil || c.Status == metav1.ConditionTrue || c.Status != metav1.ConditionFalse && flaw != UnknownBlocks {
		return ""
	}
	var by []string
	if p.Spec != nil {
		for _, rs := range p.Status.ProbeResources {
			for _, pr := range p.Spec.ProbeResources {
				if pr.Upgradeable != "" && plural(pr.Resource) == rs.Kind && slices.Contains(rs.Reasons, pr.Upgradeable) {
					by = append(by, fmt.Sprintf("%s %s/%s: %s", rs.Kind, rs.Namespace, rs.Name, pr.Upgradeable))
					break
				}
			}
		}
	}
	detail := strings.Join(by, "; ")
	if detail == "" {
		detail = fmt.Sprintf("Upgradeable=%s: %s", c.Status, c.Message)
	}
	return fmt.Sprintf("Upgrade to %s blocked by Probe %s: %s", u.To, p.Name, detail)
}

// plural is the plural of a CRD's name, its first label ("foos" of
// "foos.example.com"), as a CRD's name always is.
func plural(crd string) string {
	p, _, _ := strings.Cut(crd, ".")
	return p
}

// operatorConditionBlocks is the gate OLM shipped (docs/upstream.md, seed
// 002), in its order and message forms: no OperatorCondition allows; an
// Upgradeable override decides alone (True allows); else the Upgradeable
// status condition blocks when its observedGeneration is not the generation
// ("is outdated") or it is False; True, Unknown or no condition allow. ""
// means allowed.
func operatorConditionBlocks(oc *OperatorCondition, flaw GateFlaw) string {
	if oc == nil {
		return ""
	}
	if o := meta.FindStatusCondition(oc.Overrides, ConditionUpgradeable); o != nil && flaw != IgnoresOverride {
		if o.Status == metav1.ConditionTrue {
			return ""
		}
		return "operator is not upgradeable: the operator is not upgradeable: " + o.Message
	}
	c := meta.FindStatusCondition(oc.Conditions, ConditionUpgradeable)
	switch {
	case c == nil:
		return ""
	case c.ObservedGeneration != oc.Generation && flaw != IgnoresGeneration:
		return fmt.Sprintf("operator is not upgradeable: the operatorcondition status %q=%q is outdated", c.Type, c.Status)
	case c.Status == metav1.ConditionFalse, c.Status != metav1.ConditionTrue && flaw == UnknownBlocks:
		return "operator is not upgradeable: the operator is not upgradeable: " + c.Message
	}
	return ""
}
