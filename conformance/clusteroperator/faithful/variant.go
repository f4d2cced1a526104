package faithful

import (
	"fmt"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Variant is one faithful operator's choices where seed 001 leaves them
// open.
type Variant struct {
	// Requeue, if set, is how long after a change it looks (a requeue);
	// otherwise it looks on a Resync grid, whatever changed.
	Requeue, Resync time.Duration
	// Failing names the condition that says something is wrong by its older
	// name (decision 001, conformance/clusteroperator/README.md: the same
	// condition as Degraded).
	Failing bool
	// Quorum reads "functional" (Available) as more than half of each
	// operand ready; otherwise one ready pod each.
	Quorum bool
	// ShareNum/ShareDen is the share of a DaemonSet's nodes an
	// installation needs to count as rolled out (honored by components 1:
	// "within some reasonable percentage"); 1/1 is every node.
	ShareNum, ShareDen int
	// EarlyVersion moves an upgrade's version as soon as no old pod runs
	// and every spec asks for it, before the new pods are ready.
	EarlyVersion bool
	// OperandVersions reports a version per operand, before the operator's.
	OperandVersions bool
	// AlwaysUpgradeable writes Upgradeable True when nothing blocks;
	// otherwise the condition is left out then.
	AlwaysUpgradeable bool
	// Words are its messages and reasons.
	Words Words
}

// Words are a variant's texts: format strings and reasons of its own.
type Words struct {
	Installing, Serving, Down string // Available's messages (version)
	Rolling, Stalled, Steady  string // Progressing's (version, and ready/of for Rolling)
	StallDetail               string // Failing's (kind, name, version, stuck for, waiting for)
	Blocked                   string // Upgradeable's (the blocker)
	// Refused is Failing's when the API server refused operand writes
	// (version, what was refused): said at once. Empty: a refused write
	// is failing only once the rollout has stalled, and the stall's
	// detail names it (RefusedDetail, what was refused).
	Refused, RefusedDetail string
	// ReasonRefused is Failing's reason when Refused is said.
	ReasonRefused string
	// Allowed is Upgradeable's message when nothing blocks an upgrade.
	Allowed string
	// ReasonInstalling and ReasonServing are Available's reasons while
	// installing and once serving.
	ReasonInstalling, ReasonServing string
	// ReasonDown is Available's reason when down, ReasonRolling
	// Progressing's during a rollout.
	ReasonDown, ReasonRolling string
	// ReasonStalled and ReasonSteady are Progressing's when the rollout
	// stalled and when nothing is rolling out.
	ReasonStalled, ReasonSteady string
	// ReasonFine and Healthy are Failing's reason and message when nothing
	// fails, ReasonBlocked Upgradeable's reason when an admin blocks.
	ReasonFine, ReasonBlocked, Healthy string
}

// stuckAfter is how long a rollout may make no progress before the
// operator reports it failing: the seed gives no figure; the variants take
// 9 minutes, within the rules' 10.
const stuckAfter = 9 * time.Minute

// Variants are the faithful variants the self-test plays (package doc).
var (
	Requeue = Variant{Requeue: 20 * time.Second, Quorum: true, ShareNum: 1, ShareDen: 1, Words: Words{
		Installing: "Installation of %s is under way", Serving: "Serving version %s", Down: "Too few operand pods are ready to serve %s",
		Rolling: "Rolling out %s: %d/%d ready", Stalled: "Rollout of %s has stalled", Steady: "Deployed %s",
		StallDetail:      "%s %s has not moved towards %s for %s; still waiting for %s. Check why these pods do not become ready.",
		Blocked:          "Upgrades are blocked until the administrator resolves this: %s",
		Refused:          "Cannot roll out %s: the API server refused to update %s. Operand writes are retried.",
		ReasonRefused:    "OperandWriteRefused",
		ReasonInstalling: "InstallInProgress", ReasonServing: "Serving", ReasonDown: "QuorumLost", ReasonRolling: "Rollout",
		ReasonStalled: "RolloutStalled", ReasonSteady: "Deployed", ReasonFine: "NoErrors", ReasonBlocked: "AdminBlocked",
	}}
	Resync = Variant{Resync: 25 * time.Second, Failing: true, ShareNum: 2, ShareDen: 3, EarlyVersion: true,
		OperandVersions: true, AlwaysUpgradeable: true, Words: Words{
			Installing: "Waiting for the first rollout of %s", Serving: "Operands of %s are up", Down: "An operand of %s has no ready pod",
			Rolling: "Moving to %s with %d of %d ready", Stalled: "Unable to move to %s: the rollout is stuck", Steady: "Steady at %s",
			StallDetail: "The rollout of %[1]s %[2]s to %[3]s made no progress in %[4]s. Pods not ready at %[3]s: %[5]s.",
			Blocked:     "%s", Allowed: "No upgrade blocker is set",
			RefusedDetail:    " The API server refused these writes: %s.",
			ReasonInstalling: "FirstRollout", ReasonServing: "OperandsUp", ReasonDown: "OperandDown", ReasonRolling: "Moving",
			ReasonStalled: "Stuck", ReasonSteady: "Steady", ReasonFine: "Healthy", ReasonBlocked: "UpgradeBlocker", Healthy: "Nothing is failing",
		}}
)

// look is when a change seen at now is looked at: a requeue after it, or
// the next instant of the resync grid.
func (v Variant) look(now time.Time) time.Time {
	if v.Requeue > 0 {
		return now.Add(v.Requeue)
	}
	t := now.Truncate(v.Resync)
	if t.Equal(now) {
		return now
	}
	return t.Add(v.Resync)
}

const operatorEntry = "operator" // 001 §Version: watched by the version operator

// status is the whole status the operator must write after a look (nil
// when it stands), and when it must look again unprompted (a stall's
// deadline; zero for never).
func (v Variant) status(s Setup, old configv1.ClusterOperatorStatus, o observed, m *memory, target string, now time.Time) (*configv1.ClusterOperatorStatus, time.Time) {
	reported := versionOf(old.Versions)
	complete := o.complete(target)
	wasRolling := conditionOf(old.Conditions, configv1.OperatorProgressing).Status == configv1.ConditionTrue
	version := reported
	switch {
	case complete,
		reported == "" && o.share(target, v.ShareNum, v.ShareDen),
		reported != "" && v.EarlyVersion && o.noOld(target):
		version = target
	}
	rolling := !complete && (version != target || wasRolling || reported != target)
	var wake time.Time
	stuck := false
	if rolling && !m.progress.IsZero() {
		due := m.progress.Add(stuckAfter)
		stuck = !now.Before(due)
		if !stuck {
			wake = due
		}
	}
	w := v.Words
	var conds []configv1.ClusterOperatorStatusCondition
	add := func(t configv1.ClusterStatusConditionType, st configv1.ConditionStatus, reason, msg string) {
		conds = append(conds, configv1.ClusterOperatorStatusCondition{Type: t, Status: st, Reason: reason, Message: msg})
	}
	failing := configv1.OperatorDegraded
	if v.Failing {
		failing = "Failing"
	}
	refused := strings.Join(o.refused, "; ")
	switch {
	case refused != "" && w.Refused != "":
		add(failing, configv1.ConditionTrue, w.ReasonRefused, fmt.Sprintf(w.Refused, target, refused))
	case stuck:
		var detail string
		for _, x := range o.workloads {
			if x.readyAt(target) < x.wants(o.nodes) || x.old(target) {
				detail = fmt.Sprintf(w.StallDetail, x.Kind, x.Name, target, stuckAfter, o.waiting(target))
				break
			}
		}
		if refused != "" {
			detail += fmt.Sprintf(w.RefusedDetail, refused)
		}
		add(failing, configv1.ConditionTrue, w.ReasonStalled, detail)
	default:
		add(failing, configv1.ConditionFalse, w.ReasonFine, w.Healthy)
	}
	switch {
	case stuck:
		add(configv1.OperatorProgressing, configv1.ConditionTrue, w.ReasonStalled, fmt.Sprintf(w.Stalled, target))
	case rolling:
		n, of := o.progress(target)
		add(configv1.OperatorProgressing, configv1.ConditionTrue, w.ReasonRolling, fmt.Sprintf(w.Rolling, target, n, of))
	default:
		add(configv1.OperatorProgressing, configv1.ConditionFalse, w.ReasonSteady, fmt.Sprintf(w.Steady, version))
	}
	switch {
	case version == "":
		add(configv1.OperatorAvailable, configv1.ConditionFalse, w.ReasonInstalling, fmt.Sprintf(w.Installing, target))
	case o.functional(v.Quorum):
		add(configv1.OperatorAvailable, configv1.ConditionTrue, w.ReasonServing, fmt.Sprintf(w.Serving, version))
	default:
		add(configv1.OperatorAvailable, configv1.ConditionFalse, w.ReasonDown, fmt.Sprintf(w.Down, version))
	}
	switch {
	case o.blocker != "":
		add(configv1.OperatorUpgradeable, configv1.ConditionFalse, w.ReasonBlocked, fmt.Sprintf(w.Blocked, o.blocker))
	case v.AlwaysUpgradeable:
		add(configv1.OperatorUpgradeable, configv1.ConditionTrue, w.ReasonFine, w.Allowed)
	}
	if !v.Failing { // the Available-first order of Resync, or Degraded first
		slices.Reverse(conds)
	}

	var versions []configv1.OperandVersion
	if version != "" {
		if v.OperandVersions {
			for _, x := range s.Operands {
				versions = append(versions, configv1.OperandVersion{Name: x.Name, Version: version})
			}
		}
		versions = append(versions, configv1.OperandVersion{Name: operatorEntry, Version: version})
	}

	// lastTransitionTime: kept while a status stays, now when it changes,
	// and now on Progressing when the version moves or it comes to rest
	// (001 §Version reporting during an upgrade: "MUST set
	// lastTransitionTime on Progressing to the current time").
	stamp := metav1.NewTime(now).Rfc3339Copy()
	completed := version != reported || wasRolling && !rolling && !stuck
	for i := range conds {
		c := &conds[i]
		prev, found := findCondition(old.Conditions, c.Type)
		switch {
		case c.Type == configv1.OperatorProgressing && c.Status != configv1.ConditionTrue && completed:
			c.LastTransitionTime = stamp
		case found && prev.Status == c.Status:
			c.LastTransitionTime = prev.LastTransitionTime
		default:
			c.LastTransitionTime = stamp
		}
	}
	for _, c := range old.Conditions {
		if !slices.Contains(owned, c.Type) {
			conds = append(conds, c)
		}
	}
	if sameConditions(old.Conditions, conds) && slices.Equal(old.Versions, versions) {
		return nil, wake
	}
	out := old.DeepCopy()
	out.Conditions, out.Versions = conds, versions
	return out, wake
}

// owned are the condition types the operator writes (both names of the
// failing one, so that none is left behind).
var owned = []configv1.ClusterStatusConditionType{configv1.OperatorAvailable, configv1.OperatorProgressing,
	configv1.OperatorDegraded, "Failing", configv1.OperatorUpgradeable}

func versionOf(vs []configv1.OperandVersion) string {
	for _, x := range vs {
		if x.Name == operatorEntry {
			return x.Version
		}
	}
	return ""
}

func findCondition(cs []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) (configv1.ClusterOperatorStatusCondition, bool) {
	for _, c := range cs {
		if c.Type == t {
			return c, true
		}
	}
	return configv1.ClusterOperatorStatusCondition{}, false
}

// stalledSince is when the status the variant wrote says the rollout to
// target stalled (its Failing or Degraded's lastTransitionTime), zero if
// it says no stall: a restarted instance reads its stall there rather than
// counting one anew from its start (CO-008: until it progresses).
func (v Variant) stalledSince(st configv1.ClusterOperatorStatus, target string) time.Time {
	failing := configv1.OperatorDegraded
	if v.Failing {
		failing = "Failing"
	}
	f := conditionOf(st.Conditions, failing)
	p := conditionOf(st.Conditions, configv1.OperatorProgressing)
	if f.Status != configv1.ConditionTrue || f.Reason != v.Words.ReasonStalled || p.Message != fmt.Sprintf(v.Words.Stalled, target) {
		return time.Time{}
	}
	return f.LastTransitionTime.Time
}

func conditionOf(cs []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) configv1.ClusterOperatorStatusCondition {
	c, _ := findCondition(cs, t)
	return c
}

// sameConditions compares as a set: order means nothing to a reader.
func sameConditions(a, b []configv1.ClusterOperatorStatusCondition) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		y, ok := findCondition(b, x.Type)
		if !ok || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || !x.LastTransitionTime.Equal(&y.LastTransitionTime) {
			return false
		}
	}
	return true
}
