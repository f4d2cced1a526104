package component

import (
	"fmt"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OperatorVersion is the versions entry the version operator watches (001
// §Version).
const OperatorVersion = "operator"

// Reasons the operator writes.
const (
	ReasonAsExpected          = "AsExpected"
	ReasonInstalling          = "Installing"          // Available False: first rollout not complete
	ReasonOperandUnavailable  = "OperandUnavailable"  // Available False: an operand has no ready pod
	ReasonRollingOut          = "RollingOut"          // Progressing True
	ReasonApplyFailed         = "ApplyFailed"         // Progressing and Degraded True: an ApplyError
	ReasonOperandStuck        = "OperandStuck"        // Progressing and Degraded True: no progress for StuckAfter
	ReasonAdminActionRequired = "AdminActionRequired" // Upgradeable False, for a blocker without a valid reason
	ReasonMultipleBlockers    = "MultipleBlockers"    // Upgradeable False, for blockers of several reasons
)

// Step decides from one look at the operator's world: the operand specs
// to write, the status to write (none when nothing changed) and when to
// look again. It reads no clock: now is the look's instant.
func (p Params) Step(in Input, now time.Time) Output {
	p = p.withDefaults()
	var out Output
	rs := make([]rollout, len(in.Operands))
	for i, o := range in.Operands {
		rs[i] = p.survey(o, in.Config)
		if !rs[i].applied() {
			out.Specs = append(out.Specs, Spec{Kind: o.Kind, Name: o.Name, Level: rs[i].target})
		}
	}
	d := p.decide(in, rs, now)
	out.Next = d.next
	status := in.Status.DeepCopy()
	status.Conditions = append(p.conditions(in, d, now), foreign(in.Status.Conditions)...)
	status.Versions = slices.Clone(d.versions)
	switch {
	case sameConditions(in.Status.Conditions, status.Conditions) && sameVersions(in.Status.Versions, status.Versions):
	case p.has(SplitWrite) && !sameVersions(in.Status.Versions, status.Versions) &&
		!sameConditions(in.Status.Conditions, status.Conditions):
		first := in.Status.DeepCopy()
		first.Conditions = slices.Clone(status.Conditions)
		out.Writes = []configv1.ClusterOperatorStatus{*first, *status}
	case p.has(ChurnsTransitions):
		churn(status.Conditions, metav1.NewTime(now).Rfc3339Copy())
		out.Writes = []configv1.ClusterOperatorStatus{*status}
	default:
		out.Writes = []configv1.ClusterOperatorStatus{*status}
	}
	return out
}

// decision is what one look concludes, before it is put into conditions.
type decision struct {
	rs       []rollout
	versions []configv1.OperandVersion // to report
	complete bool                      // every operand complete
	// rolling: Progressing, the operator is moving to a level it has not
	// reached (001 §What should an operator report, honored by components 3).
	rolling    bool
	wasRolling bool      // the status says Progressing True
	stuck      []rollout // operands that made no progress for StuckAfter
	next       time.Time
	// quiet is ProgressingLate40s's: Progressing left False while rolling.
	quiet bool
}

func (p Params) decide(in Input, rs []rollout, now time.Time) decision {
	d := decision{rs: rs, versions: in.Status.Versions, complete: true}
	moving, applied := false, true
	for _, r := range rs {
		d.complete = d.complete && r.complete()
		applied = applied && r.applied()
		moving = moving || !r.applied() || r.old()
	}
	want := p.versions(rs)
	reported := versionOf(d.versions, OperatorVersion)
	switch {
	case d.complete && p.versionDelay() > 0 && now.Before(lastMoved(rs).Add(p.versionDelay())):
		// VersionAtResync: complete, but reported only later,
		// rolling until then.
		d.next = lastMoved(rs).Add(p.versionDelay())
	case d.complete:
		// 001 §Version reporting during an upgrade: no old version runs or
		// will run, and the new one is rolled out (honored by components 5).
		// On install, the first versions are written now too: a version is
		// never reported before it is reached.
		d.versions = want
	case p.has(EarlyVersion) && reported != "" && applied,
		p.has(VersionShortOne) && reported != "" && applied && oldPods(rs) <= 1,
		p.has(InstallVersionEarly) && reported == "" && applied:
		d.versions = want
	}
	d.wasRolling = conditionStatus(in.Status.Conditions, configv1.OperatorProgressing) == configv1.ConditionTrue
	// A rollout once begun is followed to its completion, readiness included;
	// pods merely turning unready at a level already reached are not
	// progress (reconciling a known state).
	d.rolling = in.ApplyError != nil || moving || !sameVersions(d.versions, want) || (d.wasRolling && !d.complete)
	// Only once rolling is known, so that the flaw's stale entry is not
	// taken for a version still to reach.
	if old := versionOf(in.Status.Versions, OperatorVersion); p.has(KeepsOldVersion) && old != "" {
		d.versions = withVersion(d.versions, OperatorVersion, old)
	}
	stuckAfter := p.StuckAfter
	if p.has(DegradedLate1m) {
		stuckAfter += time.Minute
	}
	if d.rolling {
		for _, r := range rs {
			switch at := r.stuckAt(stuckAfter); {
			case at.IsZero():
			case !now.Before(at):
				d.stuck = append(d.stuck, r)
			default:
				d.next = earliest(d.next, at)
			}
		}
	}
	if in.ApplyError != nil {
		d.next = earliest(d.next, now.Add(p.RetryAfter))
	}
	p.flawedTiming(in, &d, applied, now)
	return d
}

// versions are what the operator reports once every operand is complete:
// its own version, then one entry per operand (001 §Version: "MAY report
// additional versions of its underlying operands").
func (p Params) versions(rs []rollout) []configv1.OperandVersion {
	vs := []configv1.OperandVersion{{Name: OperatorVersion, Version: p.Version}}
	for _, r := range rs {
		vs = append(vs, configv1.OperandVersion{Name: r.Name, Version: r.target.Version})
	}
	return vs
}

// conditions are the four the operator owns, with their transition times:
// kept while a status stays, now when it changes, and now on Progressing
// at an upgrade's completion (001 §Version reporting during an upgrade).
func (p Params) conditions(in Input, d decision, now time.Time) []configv1.ClusterOperatorStatusCondition {
	conds := []configv1.ClusterOperatorStatusCondition{
		p.available(d), p.progressing(in, d), p.degraded(in, d), p.upgradeable(in, d),
	}
	stamp := metav1.NewTime(now).Rfc3339Copy() // the API server keeps seconds
	completed := conds[1].Status == configv1.ConditionFalse &&
		(d.wasRolling || !sameVersions(in.Status.Versions, d.versions))
	for i := range conds {
		c := &conds[i]
		if p.has(LowercaseMessages) {
			c.Message = lowercase(c.Message)
		}
		if p.has(SpacedReason) {
			c.Reason = spaced(c.Reason)
		}
		prev, found := condition(in.Status.Conditions, c.Type)
		switch {
		case c.Type == configv1.OperatorProgressing && completed && found && p.has(StaleCompletion):
			c.LastTransitionTime = prev.LastTransitionTime
		case c.Type == configv1.OperatorProgressing && completed && p.has(StampEarly1s):
			c.LastTransitionTime = metav1.NewTime(stamp.Add(-time.Second))
		case c.Type == configv1.OperatorProgressing && completed && p.has(StampRolloutStart):
			c.LastTransitionTime = metav1.NewTime(lastWritten(d.rs)).Rfc3339Copy()
		case c.Type == configv1.OperatorProgressing && completed:
			c.LastTransitionTime = stamp
		case found && prev.Status == c.Status:
			c.LastTransitionTime = prev.LastTransitionTime
		default:
			c.LastTransitionTime = stamp
		}
	}
	return conds
}

// available: not the first time until the first rollout is complete
// (honored by components 1); after that, while every operand serves.
func (p Params) available(d decision) configv1.ClusterOperatorStatusCondition {
	c := configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: ReasonAsExpected}
	serves := !slices.ContainsFunc(d.rs, func(r rollout) bool { return !r.serves() })
	reported := versionOf(d.versions, OperatorVersion)
	switch {
	case p.has(UnavailableWhileRolling) && reported != "" && d.rolling:
		c.Status, c.Reason = configv1.ConditionFalse, reasonUpgrading
		c.Message = fmt.Sprintf("Component %s is upgrading to %s", p.Name, p.Version)
	case reported != "" && serves:
		c.Message = fmt.Sprintf("Component %s has deployed %s", p.Name, reported)
		if p.has(TwoSentenceAvailable) {
			c.Message += ". All operands are ready"
		}
	case reported != "":
		var down []string
		for _, r := range d.rs {
			if !r.serves() {
				down = append(down, fmt.Sprintf("%s %s", r.Kind, r.Name))
			}
		}
		c.Status, c.Reason = configv1.ConditionFalse, ReasonOperandUnavailable
		c.Message = fmt.Sprintf("%s %s no ready pods", joinAnd(down), plural(len(down), "has", "have"))
	case p.has(EarlyAvailable) && serves, p.has(AvailableOnCreation) && created(d.rs):
		c.Message = fmt.Sprintf("Component %s has deployed %s", p.Name, p.Version)
	default:
		c.Status, c.Reason = configv1.ConditionFalse, ReasonInstalling
		c.Message = fmt.Sprintf("Component %s has not yet deployed %s", p.Name, p.Version)
		if p.has(EllipsisInstalling) {
			c.Message += "..."
		}
	}
	if p.has(PunctuatedAvailable) {
		c.Message += "."
	}
	if p.has(NameFirstAvailable) {
		c.Message = strings.TrimPrefix(c.Message, "Component ")
	}
	return c
}

// progressing: True with the target version while rolling out (honored by
// components 3), "Unable to apply" while blocked (001 §Conditions).
func (p Params) progressing(in Input, d decision) configv1.ClusterOperatorStatusCondition {
	c := configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorProgressing, Status: configv1.ConditionTrue}
	switch {
	case p.has(ProgressingAtRest) && in.FirstLook && !d.rolling && !d.wasRolling:
		c.Reason = reasonReconciling
		c.Message = fmt.Sprintf("Reconciling component %s at version %s", p.Name, versionOf(d.versions, OperatorVersion))
	case p.has(ProgressingOnBlocker) && !d.rolling && len(in.Blockers) > 0:
		c.Reason, c.Message = reasonReconciling, "Reconciling the administrator's upgrade blocker"
	case !d.rolling || p.has(NeverProgressing) || d.quiet:
		c.Status, c.Reason = configv1.ConditionFalse, ReasonAsExpected
		v := versionOf(d.versions, OperatorVersion)
		if old := versionOf(in.Status.Versions, OperatorVersion); p.has(StaleRestMessage) && old != "" {
			v = old
		}
		if v != "" {
			c.Message = fmt.Sprintf("Component %s is at version %s", p.Name, v)
		} else {
			c.Message = fmt.Sprintf("Component %s has no version yet", p.Name)
		}
	case in.ApplyError != nil:
		summary := in.ApplyError.Summary
		if summary == "" {
			summary = "an operand could not be updated"
		}
		c.Reason, c.Message = ReasonApplyFailed, fmt.Sprintf("Unable to apply %s: %s", p.Version, summary)
	case p.has(DetailedStuckProgressing) && len(d.stuck) > 0:
		var parts []string
		for _, r := range d.stuck {
			parts = append(parts, r.describeStuck(p.StuckAfter))
		}
		c.Reason, c.Message = ReasonOperandStuck, fmt.Sprintf("Unable to apply %s: %s", p.Version, joinSentences(parts))
	case len(d.stuck) == 1:
		c.Reason, c.Message = ReasonOperandStuck, fmt.Sprintf("Unable to apply %s: %s is not progressing", p.Version, d.stuck[0].noun())
	case len(d.stuck) > 1:
		c.Reason, c.Message = ReasonOperandStuck, fmt.Sprintf("Unable to apply %s: %d operands are not progressing", p.Version, len(d.stuck))
	default:
		updated, total := 0, 0
		for _, r := range d.rs {
			updated, total = updated+min(r.ready, r.total), total+r.total
		}
		c.Reason, c.Message = ReasonRollingOut, fmt.Sprintf("Working towards %s: %d of %d pods updated", p.Version, updated, total)
		if p.has(UnversionedProgressing) || p.has(ProgressingDropsVersion) && d.wasRolling {
			c.Message = fmt.Sprintf("Rolling out: %d of %d pods updated", updated, total)
		}
		if p.has(PodListProgressing) {
			c.Message += ", waiting for " + waitingFor(d.rs)
		}
	}
	if p.has(WordyProgressing) {
		c.Message += fmt.Sprintf(wordyClause, p.Name)
	}
	return c
}

// degraded: True with a detailed message when the operator cannot
// accomplish its task (honored by components 2, 001 §Conditions), False
// with no message otherwise.
func (p Params) degraded(in Input, d decision) configv1.ClusterOperatorStatusCondition {
	c := configv1.ClusterOperatorStatusCondition{Type: p.Degraded, Status: configv1.ConditionFalse, Reason: ReasonAsExpected}
	var parts []string
	if e := in.ApplyError; e != nil && !p.has(SilentOnApplyErrors) {
		detail := e.Detail
		if detail == "" {
			detail = e.Summary
		}
		c.Reason = ReasonApplyFailed
		parts = append(parts, fmt.Sprintf("Unable to apply %s: %s", p.Version, detail))
	}
	stuck := d.stuck
	if p.has(NeverDegraded) {
		stuck = nil
	}
	for _, r := range stuck {
		if len(parts) == 0 {
			c.Reason = ReasonOperandStuck
		}
		parts = append(parts, r.describeStuck(p.StuckAfter))
	}
	if len(parts) > 0 {
		c.Status = configv1.ConditionTrue
		if !p.has(SilentDegraded) {
			c.Message = joinSentences(parts)
		}
	}
	if len(parts) > 0 && in.ApplyError == nil { // a stall alone
		switch {
		case p.has(DegradedUnknown):
			c.Status = configv1.ConditionUnknown
		case p.has(NounDegraded):
			var nouns []string
			for _, r := range stuck {
				nouns = append(nouns, r.noun())
			}
			c.Message = joinAnd(nouns) + " stuck"
		}
	}
	if p.has(TerseDegraded) && c.Status == configv1.ConditionTrue {
		c.Message = c.Reason
	}
	return c
}

// upgradeable: False with what the administrator must fix while a blocker
// stands (honored by components 4); True with no message otherwise.
func (p Params) upgradeable(in Input, d decision) configv1.ClusterOperatorStatusCondition {
	c := configv1.ClusterOperatorStatusCondition{Type: configv1.OperatorUpgradeable, Status: configv1.ConditionTrue, Reason: ReasonAsExpected}
	if prev, ok := condition(in.Status.Conditions, configv1.OperatorUpgradeable); ok && len(in.Blockers) == 0 &&
		p.has(StaysBlocked) && prev.Status == configv1.ConditionFalse {
		c.Status, c.Reason, c.Message = prev.Status, prev.Reason, prev.Message
		return c
	}
	if len(in.Blockers) == 0 || p.has(IgnoresBlockers) {
		if p.has(UpgradeableWhileRolling) && d.rolling {
			c.Status, c.Reason = configv1.ConditionFalse, ReasonRollingOut
		}
		return c
	}
	c.Status = configv1.ConditionFalse
	var reasons, fixes []string
	for _, b := range in.Blockers {
		reason := b.Reason
		if !validReason(reason) {
			reason = ReasonAdminActionRequired
		}
		fix := b.Message
		if fix == "" {
			fix = fmt.Sprintf("An administrator must resolve %s before an upgrade", reason)
		}
		if !slices.Contains(reasons, reason) {
			reasons = append(reasons, reason)
		}
		fixes = append(fixes, fix)
	}
	c.Reason = ReasonMultipleBlockers
	if len(reasons) == 1 {
		c.Reason = reasons[0]
	}
	switch {
	case p.has(SilentUpgradeable),
		p.has(TransientUpgradeable) && conditionStatus(in.Status.Conditions, configv1.OperatorUpgradeable) == configv1.ConditionFalse:
	case len(fixes) == 1:
		c.Message = capitalize(fixes[0])
	default:
		c.Message = joinSentences(fixes)
	}
	return c
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}
