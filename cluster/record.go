package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A run's record is its namespace, RunNamespace(id), the first thing it
// creates: its annotations say who runs it (Owner), until when
// (Deadline), the cluster-scoped kinds it may create beyond Namespaces
// (all it may create is known before it starts: KindPolicy) and the
// replicas of the Deployments it may scale. Whatever a run creates is
// labelled RunLabel=<id>, so that a run killed outright (SIGKILL) leaves
// a record that says where its objects are, and the next run on the
// cluster sweeps them (Sweep). Cleanup deletes the record last, and
// keeps it when it could not delete everything.
const (
	annStarted  = "opcert.io/started"
	annReplicas = "opcert.io/replicas"
	annOwner    = "opcert.io/owner"
	annDeadline = "opcert.io/deadline"
	annKinds    = "opcert.io/cluster-kinds"
)

// RunNamespace is the namespace of run id, its record; every name the run
// gives on the cluster begins with it.
func RunNamespace(id string) string { return "opcert-" + id }

// Record is what a run's namespace says of it.
type Record struct {
	// ID is the run's, which its namespace name and RunLabel carry.
	ID string
	// Started is when the run began, Deadline when another machine may take it for dead (DeadlineAfter).
	Started, Deadline time.Time
	// Owner is the opcert process that runs it.
	Owner Owner
	// Kinds are the cluster-scoped kinds the run may create besides
	// Namespaces.
	Kinds []schema.GroupKind
	// Replicas are the replicas of the Deployments the run may scale, by
	// "namespace/name", as found before it started: what to restore by
	// hand after a SIGKILL.
	Replicas map[string]int32
}

// deadlineMargin is added to twice a run's expected wall time to make its
// deadline.
const deadlineMargin = 15 * time.Minute

// DeadlineAfter is the deadline of a run that starts at started and
// expects to take wall: past it, a run of another machine is taken for
// dead (one of this machine is dead when its process is gone).
func DeadlineAfter(started time.Time, wall time.Duration) time.Time {
	return started.Add(2*wall + CleanupTimeout + deadlineMargin)
}

// Namespace is the record as the run's namespace, to create.
func (r Record) Namespace() (*corev1.Namespace, error) {
	replicas, err := json.Marshal(r.Replicas)
	if err != nil {
		return nil, err
	}
	owner, err := json.Marshal(r.Owner)
	if err != nil {
		return nil, err
	}
	kinds := make([]string, len(r.Kinds))
	for i, k := range r.Kinds {
		kinds[i] = KindString(k)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace(r.ID), Annotations: map[string]string{
		annStarted:  r.Started.UTC().Format(time.RFC3339),
		annDeadline: r.Deadline.UTC().Format(time.RFC3339),
		annReplicas: string(replicas),
		annOwner:    string(owner),
		annKinds:    strings.Join(kinds, ","),
	}}}, nil
}

// readRecord reads the record of run id from its namespace.
func readRecord(id string, ns *corev1.Namespace) (Record, error) {
	a := ns.Annotations
	r := Record{ID: id}
	var errs []error
	var err error
	if r.Started, err = time.Parse(time.RFC3339, a[annStarted]); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", annStarted, err))
	}
	if r.Deadline, err = time.Parse(time.RFC3339, a[annDeadline]); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", annDeadline, err))
	}
	if err := json.Unmarshal([]byte(a[annOwner]), &r.Owner); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", annOwner, err))
	}
	if err := json.Unmarshal([]byte(a[annReplicas]), &r.Replicas); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", annReplicas, err))
	}
	for k := range strings.SplitSeq(a[annKinds], ",") {
		if k != "" {
			r.Kinds = append(r.Kinds, schema.ParseGroupKind(k))
		}
	}
	return r, errors.Join(errs...)
}

// Owner is the opcert process that runs a run: its machine (host name and,
// on Linux, PID namespace: two containers may share a host name) and its
// process ID.
type Owner struct {
	// Host is the machine's host name (and, on Linux, its PID namespace).
	Host string `json:"host"`
	// PID is the opcert process's ID on that machine.
	PID int `json:"pid"`
}

// Self is this opcert process.
func Self() Owner {
	host, _ := os.Hostname()
	if ns, err := os.Readlink("/proc/self/ns/pid"); err == nil {
		host += " " + ns
	}
	return Owner{Host: host, PID: os.Getpid()}
}

// Dead says why the run of r is over, seen from self at now, or "" if it
// may still be running: on self's machine, when its process is gone; on
// another, when its deadline has passed. A process of this machine that
// has its PID is taken for the run's, whatever its deadline: a run is
// never swept from under itself.
func (r Record) Dead(self Owner, now time.Time) string {
	if r.Owner.Host == self.Host && r.Owner.PID > 0 {
		if err := unix.Kill(r.Owner.PID, 0); errors.Is(err, unix.ESRCH) {
			return "its opcert, process " + strconv.Itoa(r.Owner.PID) + " of this machine, is gone"
		}
		return ""
	}
	if now.After(r.Deadline) {
		return fmt.Sprintf("it ran on %q and its deadline, %s, has passed", r.Owner.Host, r.Deadline.UTC().Format(time.RFC3339))
	}
	return ""
}
