package cvo

import (
	"fmt"
	"sort"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
)

// Reasons of the ClusterVersion's Failing and Progressing conditions. The
// first four are the upstream version operator's; the two ordering reasons
// are this reference's own (the upstream waits silently).
const (
	ReasonNoVersions          = "ClusterOperatorNoVersions"
	ReasonNotAvailable        = "ClusterOperatorNotAvailable"
	ReasonDegraded            = "ClusterOperatorDegraded"
	ReasonUpdating            = "ClusterOperatorUpdating"
	ReasonOperatorLater       = "ClusterOperatorBeforeItsOperator"
	ReasonOperatorMissing     = "ClusterOperatorWithoutOperator"
	ReasonResourceTypeMissing = "UpdatePayloadResourceTypeMissing"
)

// failing is Degraded's older name; the two are the same condition (decision
// 001, conformance/clusteroperator/README.md).
const failing configv1.ClusterStatusConditionType = "Failing"

// Fail says when a wait on a ClusterOperator makes the ClusterVersion
// report Failing=True. During an installation every wait but Stuck fails
// at the install timeout instead (001 §What should an operator report,
// guarantees to components 1).
type Fail int

// When a wait fails, in an upgrade.
const (
	// Hang never fails: the upgrade waits as long as it takes
	// (001 §What should an operator report, guarantees to components 2).
	Hang Fail = iota
	// AfterLimit fails once the sweep has waited Params.FailAfter on the
	// task (the upstream's 40 minutes for a degraded operator).
	AfterLimit
	// Outage fails at once, as the upstream does for a ClusterOperator not
	// Available: "it means there is an outage" (001 §Conditions).
	Outage
	// Stuck fails at once, installing or upgrading: the wait cannot end by
	// itself (a manifest without versions, the ordering trap).
	Stuck
)

// Wait is why the sweep cannot go past a ClusterOperator task.
type Wait struct {
	// Reason is CamelCase, for the conditions' reason.
	Reason string
	// Message is terse and capitalised; the upstream's forms where it has one.
	Message string
	// Detail says why, from the live object or the payload.
	Detail string
	// Fail is when the wait turns into the upgrade's failure.
	Fail Fail
}

// check returns why the sweep must wait at tasks[i], a ClusterOperator task,
// or nil when the live object is there. The order of the checks is the
// upstream's (docs/upstream.md, seed 001): versions declared, Available,
// Degraded (or Failing), versions reached; Progressing is not checked. Before
// those, a ClusterOperator whose versions are not reached while its operator
// is not in place is the ordering trap of 001's NOTE, said plainly.
func check(tasks []Task, i int, c Cluster) *Wait {
	t := tasks[i]
	if len(t.Versions) == 0 {
		// 001 §What should be the contents of ClusterOperator Custom Resource
		// in /manifests: only instances that report their version are respected.
		return &Wait{Reason: ReasonNoVersions, Fail: Stuck,
			Message: fmt.Sprintf("Cluster operator %s does not declare expected versions", t.Name),
			Detail:  fmt.Sprintf("its manifest %s has no status.versions, so its conditions cannot be trusted", t.File)}
	}
	st, exists := c.ClusterOperators[t.Name]
	undone := unreached(t.Versions, st.Versions)
	if len(undone) > 0 {
		if w := ordering(tasks, i, c); w != nil {
			return w
		}
	}
	if !exists {
		detail := "it does not exist yet"
		if t.Operator == nil {
			detail = "it does not exist, and no operator for it was found in the payload"
		}
		return &Wait{Reason: ReasonNotAvailable, Fail: AfterLimit, Detail: detail,
			Message: fmt.Sprintf("Cluster operator %s is not available", t.Name)}
	}
	if av := find(st.Conditions, configv1.OperatorAvailable); av == nil || av.Status != configv1.ConditionTrue {
		return &Wait{Reason: ReasonNotAvailable, Fail: Outage, Detail: describe(av, "Available condition"),
			Message: fmt.Sprintf("Cluster operator %s is not available", t.Name)}
	}
	d := find(st.Conditions, configv1.OperatorDegraded)
	if d == nil {
		d = find(st.Conditions, failing)
	}
	if d == nil || d.Status != configv1.ConditionFalse {
		// A missing Degraded counts as degraded, as upstream.
		return &Wait{Reason: ReasonDegraded, Fail: AfterLimit, Detail: describe(d, "Degraded or Failing condition"),
			Message: fmt.Sprintf("Cluster operator %s is degraded", t.Name)}
	}
	if len(undone) > 0 {
		return &Wait{Reason: ReasonUpdating, Fail: Hang, Detail: "it has not reached " + strings.Join(undone, ", "),
			Message: fmt.Sprintf("Cluster operator %s is updating versions", t.Name)}
	}
	return nil
}

// ordering names the trap of 001's NOTE: the operator that must report the
// ClusterOperator comes later in the payload, so the strict sweep never
// reaches it; or it is neither in the payload nor on the cluster. Either
// way nothing will ever report the expected versions, so it fails at once.
func ordering(tasks []Task, i int, c Cluster) *Wait {
	t, op := tasks[i], tasks[i].Operator
	switch {
	case op == nil:
		return nil
	case op.Index > i:
		return &Wait{Reason: ReasonOperatorLater, Fail: Stuck,
			Message: fmt.Sprintf("Cluster operator %s precedes its operator", t.Name),
			Detail: fmt.Sprintf("its manifest %s is swept before its operator, Deployment %s in %s, "+
				"so the sweep waits for a ClusterOperator that only a later manifest can report. "+
				"Order the ClusterOperator manifest after the Deployment", t.File, op.key(), op.File)}
	case op.Index < 0 && !c.Deployments[op.key()]:
		return &Wait{Reason: ReasonOperatorMissing, Fail: Stuck,
			Message: fmt.Sprintf("Cluster operator %s has no operator", t.Name),
			Detail: fmt.Sprintf("its operator, Deployment %s, is neither in the payload nor on the cluster, "+
				"so nothing reports the ClusterOperator of %s. Add the Deployment to the payload before that manifest", op.key(), t.File)}
	}
	return nil
}

// unreached lists, sorted, the expected name/version pairs the live
// versions do not match, in the upstream's words ("operator from 4.0.0 to
// 4.0.1", or "operator to 4.0.1" when none is reported).
func unreached(want, have []configv1.OperandVersion) []string {
	var out []string
	for _, w := range want {
		cur := ""
		for _, h := range have {
			if h.Name == w.Name {
				cur = h.Version
				break
			}
		}
		switch {
		case cur == w.Version:
		case cur == "":
			out = append(out, fmt.Sprintf("%s to %s", w.Name, w.Version))
		default:
			out = append(out, fmt.Sprintf("%s from %s to %s", w.Name, cur, w.Version))
		}
	}
	sort.Strings(out)
	return out
}

func find(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// describe quotes a live condition for a detail, naming its type so that a
// Failing seen in place of Degraded says so (decision 001,
// conformance/clusteroperator/README.md).
func describe(c *configv1.ClusterOperatorStatusCondition, missing string) string {
	if c == nil {
		return "it reports no " + missing
	}
	s := fmt.Sprintf("it reports %s=%s", c.Type, c.Status)
	if c.Reason != "" {
		s += " (" + c.Reason + ")"
	}
	if c.Message != "" {
		s += ": " + c.Message
	}
	return s
}
