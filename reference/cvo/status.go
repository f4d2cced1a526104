package cvo

import (
	"fmt"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// stamp is an instant as the API server keeps it (whole seconds), so that
// what was written and what is read back compare equal.
func stamp(now time.Time) metav1.Time { return metav1.NewTime(now).Rfc3339Copy() }

// begin starts a history entry for desired unless the newest entry is it.
// An entry left unfinished by a new desired version keeps state Partial and
// is closed now, as upstream.
func begin(h []configv1.UpdateHistory, d configv1.Release, now time.Time) []configv1.UpdateHistory {
	if len(h) > 0 && h[0].Version == d.Version && h[0].Image == d.Image {
		return h
	}
	if len(h) > 0 && h[0].CompletionTime == nil {
		t := stamp(now)
		h[0].CompletionTime = &t
	}
	e := configv1.UpdateHistory{State: configv1.PartialUpdate, StartedTime: stamp(now), Version: d.Version, Image: d.Image}
	return append([]configv1.UpdateHistory{e}, h...)
}

// complete marks the newest history entry Completed.
func complete(h []configv1.UpdateHistory, now time.Time) {
	if h[0].State != configv1.CompletedUpdate {
		t := stamp(now)
		h[0].State, h[0].CompletionTime = configv1.CompletedUpdate, &t
	}
}

// deployed is the newest completed version, "" while installing.
func deployed(h []configv1.UpdateHistory) string {
	for _, e := range h {
		if e.State == configv1.CompletedUpdate {
			return e.Version
		}
	}
	return ""
}

// conditions are the ClusterVersion's own, in the forms of 001 §Conditions'
// examples, and when they will change by themselves: a refused manifest's
// retry, a wait turning into a failure (zero: never). A condition keeps its
// lastTransitionTime while its status stays.
func conditions(p Params, s State, w *Wait, b []Blocker, now time.Time) ([]configv1.ClusterOperatorStatusCondition, time.Time) {
	v, dv := s.Status.Desired.Version, deployed(s.Status.History)
	avail := cond(configv1.OperatorAvailable, configv1.ConditionFalse, "", "Cluster has not deployed a version yet")
	if dv != "" {
		avail = cond(configv1.OperatorAvailable, configv1.ConditionTrue, "", "Cluster has deployed "+dv)
	}
	fail := cond(failing, configv1.ConditionFalse, "", "")
	var prog configv1.ClusterOperatorStatusCondition
	var next time.Time
	switch {
	case s.Failure != nil:
		f, t := s.Failure, s.Tasks[s.Failure.Task]
		fail = cond(failing, configv1.ConditionTrue, f.Reason,
			sentence(fmt.Sprintf("Unable to apply %s: could not update %s because %s", v, t.File, f.Message)))
		prog = cond(configv1.OperatorProgressing, configv1.ConditionTrue, f.Reason, "Unable to apply "+v+": "+summary(f, t))
		next = f.At.Add(p.RetryAfter)
	case w != nil:
		due, why := deadline(p, s, w, dv == "")
		if due.IsZero() || now.Before(due) {
			prog = cond(configv1.OperatorProgressing, configv1.ConditionTrue, w.Reason, "Working towards "+v+": "+w.Message)
			next = due
			break
		}
		fail = cond(failing, configv1.ConditionTrue, w.Reason, sentence(w.Message+": "+w.Detail)+why)
		prog = cond(configv1.OperatorProgressing, configv1.ConditionTrue, w.Reason, "Unable to apply "+v+": "+w.Message)
	default:
		prog = cond(configv1.OperatorProgressing, configv1.ConditionFalse, "", "Cluster version is "+v)
	}
	return set(s.Status.Conditions, now, avail, fail, prog, upgradeable(b)), next
}

// deadline is when a wait fails (zero: never) and what the failure adds
// to say why then.
func deadline(p Params, s State, w *Wait, installing bool) (time.Time, string) {
	v := s.Status.Desired.Version
	switch {
	case w.Fail == Stuck:
		return s.WaitingSince, ""
	case installing:
		// The installation began with the oldest history entry.
		start := s.Status.History[len(s.Status.History)-1].StartedTime.Time
		return start.Add(p.InstallTimeout), fmt.Sprintf(" The installation of %s has not completed in %s.", v, human(p.InstallTimeout))
	case w.Fail == Outage:
		return s.WaitingSince, ""
	case w.Fail == AfterLimit:
		return s.WaitingSince.Add(p.FailAfter), fmt.Sprintf(" The upgrade to %s has waited %s on it.", v, human(p.FailAfter))
	}
	return time.Time{}, ""
}

// summary is a refused manifest in 5 to 10 words for Progressing; the
// seed's own words for a missing resource type (001 §Conditions).
func summary(f *Failure, t Task) string {
	if f.Reason == ReasonResourceTypeMissing {
		return "a required object is missing"
	}
	return "could not update " + t.File
}

func cond(t configv1.ClusterStatusConditionType, s configv1.ConditionStatus, reason, msg string) configv1.ClusterOperatorStatusCondition {
	return configv1.ClusterOperatorStatusCondition{Type: t, Status: s, Reason: reason, Message: msg}
}

// set returns conds with each of want in place of the condition of its
// type (appended when absent); the lastTransitionTime moves to now only
// when the status changes.
func set(conds []configv1.ClusterOperatorStatusCondition, now time.Time, want ...configv1.ClusterOperatorStatusCondition) []configv1.ClusterOperatorStatusCondition {
	for _, c := range want {
		c.LastTransitionTime = stamp(now)
		if old := find(conds, c.Type); old != nil {
			if old.Status == c.Status {
				c.LastTransitionTime = old.LastTransitionTime
			}
			*old = c
			continue
		}
		conds = append(conds, c)
	}
	return conds
}

// sentence ends s with a full stop unless it ends a sentence already.
func sentence(s string) string {
	if strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// human writes whole minutes in words ("40 minutes"), anything else as Go does.
func human(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return d.String()
}
