package componentoperator

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The conditions the operator owns (seed 001 §Conditions), in the order
// it writes them; any other type found in the status is kept as found.
var owned = []configv1.ClusterStatusConditionType{
	configv1.OperatorAvailable, configv1.OperatorProgressing, configv1.OperatorDegraded, configv1.OperatorUpgradeable,
}

// look is what the operator decides from at one look.
type look struct {
	cfg     Config
	reached string // the version its status reports, "" before the first rollout ends
	snap    snapshot
	refused []string  // operand writes the API server refused at this look
	moved   time.Time // when the rollout last moved
	now     time.Time
}

// decision is what it reports: the version, and each owned condition's
// status, reason and message.
type decision struct {
	version string
	conds   []configv1.ClusterOperatorStatusCondition
	// wake is when to look again with nothing changed (a stall's
	// deadline, a retry); zero for never.
	wake time.Time
}

// decide is the operator's whole policy.
func decide(l look) decision {
	v := l.cfg.Version
	d := decision{version: l.reached}
	done := l.snap.rolledOut(v)
	if l.cfg.Careless {
		done = l.snap.specsAsk(v) // the careless variant's mistake
	}
	if done {
		d.version = v
	}
	moving := d.version != v

	available := cond(configv1.OperatorAvailable, configv1.ConditionTrue, "Serving", fmt.Sprintf("Version %s of %s is serving", d.version, l.cfg.Name))
	switch down := l.snap.down(); {
	case d.version == "":
		available = cond(configv1.OperatorAvailable, configv1.ConditionFalse, "FirstRolloutPending", fmt.Sprintf("The first rollout of %s is not finished", v))
	case down != nil:
		available = cond(configv1.OperatorAvailable, configv1.ConditionFalse, "NoReadyPods", fmt.Sprintf("%s %s has no ready pod", down.Kind, down.Name))
	}

	progressing := cond(configv1.OperatorProgressing, configv1.ConditionFalse, "UpToDate", "Deployed "+d.version)
	if moving {
		ready, of := l.snap.counts(v)
		progressing = cond(configv1.OperatorProgressing, configv1.ConditionTrue, "RollingOut", fmt.Sprintf("Deploying %s, %d of %d pods ready", v, ready, of))
	}

	degraded := cond(configv1.OperatorDegraded, configv1.ConditionFalse, "Healthy", "")
	stallAt := l.moved.Add(l.cfg.StallAfter)
	switch {
	case len(l.refused) > 0:
		degraded = cond(configv1.OperatorDegraded, configv1.ConditionTrue, "OperandWriteRefused",
			fmt.Sprintf("The API server refused to update %s to %s. Tried again every %s.", strings.Join(l.refused, "; "), v, l.cfg.RetryAfter))
		d.wake = l.now.Add(l.cfg.RetryAfter)
	case moving && !l.now.Before(stallAt):
		degraded = cond(configv1.OperatorDegraded, configv1.ConditionTrue, "RolloutStalled",
			fmt.Sprintf("The rollout to %s has not moved for %s. It waits for %s.", v, l.cfg.StallAfter, l.snap.waitingFor(v)))
	case moving:
		d.wake = stallAt
	}

	upgradeable := cond(configv1.OperatorUpgradeable, configv1.ConditionTrue, "NoAdminActionNeeded", "")
	if b := strings.TrimSpace(l.snap.blocker); b != "" {
		upgradeable = cond(configv1.OperatorUpgradeable, configv1.ConditionFalse, "AdminActionNeeded", "Upgrades wait for the administrator: "+b)
	}
	d.conds = []configv1.ClusterOperatorStatusCondition{available, progressing, degraded, upgradeable}
	return d
}

func cond(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, message string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: message}
}

// apply is old with d written over it: a condition keeps its
// lastTransitionTime unless its status changes; Progressing's is stamped
// with now when the version moves (seed 001 §Version reporting during an
// upgrade: "MUST set lastTransitionTime on Progressing to the current
// time"). Condition types it does not own stay as they were.
func (d decision) apply(old configv1.ClusterOperatorStatus, now time.Time) configv1.ClusterOperatorStatus {
	out := *old.DeepCopy()
	stamp := metav1.NewTime(now.Truncate(time.Second))
	versionMoved := operatorVersion(old) != d.version
	conds := make([]configv1.ClusterOperatorStatusCondition, 0, len(owned)+len(old.Conditions))
	for _, c := range d.conds {
		c.LastTransitionTime = stamp
		if was := find(old.Conditions, c.Type); was != nil && was.Status == c.Status &&
			!(versionMoved && c.Type == configv1.OperatorProgressing) {
			c.LastTransitionTime = was.LastTransitionTime
		}
		conds = append(conds, c)
	}
	for _, c := range old.Conditions {
		if find(d.conds, c.Type) == nil {
			conds = append(conds, c)
		}
	}
	out.Conditions = conds
	if d.version != "" {
		out.Versions = []configv1.OperandVersion{{Name: "operator", Version: d.version}}
	}
	return out
}

// changed tells whether writing next over old changes anything.
func changed(old, next configv1.ClusterOperatorStatus) bool {
	return !equality.Semantic.DeepEqual(old, next)
}

func find(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) *configv1.ClusterOperatorStatusCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// operatorVersion is the version the status reports for the operator.
func operatorVersion(st configv1.ClusterOperatorStatus) string {
	for _, v := range st.Versions {
		if v.Name == "operator" {
			return v.Version
		}
	}
	return ""
}
