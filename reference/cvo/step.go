package cvo

import (
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Params are the version operator's thresholds.
type Params struct {
	// InstallTimeout is how long an installation may take, from its start,
	// before a ClusterOperator still waited on makes it fail
	// (001 §What should an operator report, guarantees to components 1).
	InstallTimeout time.Duration
	// FailAfter is how long an upgrade waits on a degraded or absent
	// ClusterOperator before it reports Failing.
	FailAfter time.Duration
	// RetryAfter is how long a refused manifest waits before it is applied again.
	RetryAfter time.Duration
}

// DefaultParams: 40 minutes to install, the time the upstream installer
// waits for the cluster to initialise and the same as the upstream version
// operator's 40 minutes on a degraded operator (FailAfter), so one number
// means "given up on" everywhere; a refused manifest is retried every minute.
func DefaultParams() Params {
	return Params{InstallTimeout: 40 * time.Minute, FailAfter: 40 * time.Minute, RetryAfter: time.Minute}
}

// State is what the version operator remembers. Status is also what it
// last wrote to the ClusterVersion, so its history and conditions carry
// over a restart; Done, WaitingSince and Failure are kept in memory (a
// restarted operator sweeps again from the first task, as upstream).
type State struct {
	// Tasks is the payload of Status.Desired, in sweep order.
	Tasks []Task
	// Done counts the tasks completed in this sweep: Tasks[Done] is next.
	Done int
	// WaitingSince is when the sweep began waiting at Tasks[Done]; zero
	// when it is not waiting.
	WaitingSince time.Time
	// Failure is a manifest the cluster refused, set by Refused.
	Failure *Failure
	// Status is the ClusterVersion status as last written: history, conditions, desired.
	Status configv1.ClusterVersionStatus
}

// Failure is a manifest the cluster refused to take.
type Failure struct {
	// Task is the refused task's index.
	Task int
	// Reason is CamelCase: ReasonResourceTypeMissing, or another the adapter picks.
	Reason string
	// Message is the cluster's answer, a clause: "the resource type
	// NetworkConfig has not been installed on the server".
	Message string
	// At is when the cluster refused the manifest.
	At time.Time
}

// Cluster is what Step reads of the cluster, as the adapter last saw it.
type Cluster struct {
	// ClusterOperators holds the status of every live ClusterOperator, by name.
	ClusterOperators map[string]configv1.ClusterOperatorStatus
	// Deployments holds "namespace/name" of the Deployments on the cluster
	// that Task.Operator names outside the payload.
	Deployments map[string]bool
}

// Decision is what Step wants done.
type Decision struct {
	// Apply are the manifests to apply now, in order. The version operator
	// creates or updates every manifest but a ClusterOperator, and goes on.
	Apply []Task
	// Wait is what the sweep waits on, nil when it is not waiting.
	Wait *Wait
	// State is the memory to keep once Apply succeeded and Write is written.
	State State
	// Write is the full ClusterVersion status to write, nil when it is
	// unchanged.
	Write *configv1.ClusterVersionStatus
	// Next is when to look again even if nothing changes; zero when only a
	// change is worth a look.
	Next time.Time
}

// Install is the state of a new cluster about to install desired.
func Install(desired configv1.Release, tasks []Task) State {
	return State{Tasks: tasks, Status: configv1.ClusterVersionStatus{Desired: desired}}
}

// Refused records that the cluster refused Tasks[t.Index], which a
// Decision of Step from s listed in Apply: the tasks before it were
// applied, the sweep stops there, and Step from the returned state reports
// the failure and offers the task again after Params.RetryAfter. reason is
// CamelCase, message the cluster's answer as a clause.
func Refused(s State, t Task, reason, message string, now time.Time) State {
	s.Done, s.WaitingSince = t.Index, time.Time{}
	s.Failure = &Failure{Task: t.Index, Reason: reason, Message: message, At: now}
	return s
}

// Step sweeps the payload from Tasks[Done]: every manifest but a
// ClusterOperator is applied and the sweep goes on; at a ClusterOperator it
// goes on only once the live object matches (check). The order is strict,
// so what follows a ClusterOperator is applied only after it reached the
// new version (001 §What should an operator report, guarantees to
// components 4). Step never reads a clock: now is the only time.
func Step(p Params, s State, c Cluster, now time.Time) Decision {
	next := s
	next.Status = *s.Status.DeepCopy()
	next.Status.History = begin(next.Status.History, next.Status.Desired, now)
	var d Decision
	if f := s.Failure; f == nil || !now.Before(f.At.Add(p.RetryAfter)) {
		next.Failure = nil
		for next.Done < len(next.Tasks) {
			t := next.Tasks[next.Done]
			if !t.ClusterOperator {
				d.Apply = append(d.Apply, t)
			} else if d.Wait = check(next.Tasks, next.Done, c); d.Wait != nil {
				break
			}
			next.Done++
			next.WaitingSince = time.Time{}
		}
	}
	if d.Wait != nil && next.WaitingSince.IsZero() {
		next.WaitingSince = now
	}
	if next.Done == len(next.Tasks) && next.Failure == nil {
		complete(next.Status.History, now)
	}
	next.Status.Conditions, d.Next = conditions(p, next, d.Wait, Blockers(c), now)
	if !equality.Semantic.DeepEqual(next.Status, s.Status) {
		d.Write = next.Status.DeepCopy()
	}
	d.State = next
	return d
}
