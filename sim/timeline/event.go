package timeline

import (
	"encoding/json"
	"time"
)

// PerturbationDetail starts the Detail of every event a perturbation puts
// on the timeline (a crash's kill, a view window's fault and clear), so
// that rules and reports can tell them from the scenario's faults.
const PerturbationDetail = "perturbation: "

// Verbs of events. API writes use the Kubernetes verb; the others are
// simulator facts that rules need to excuse or explain behaviour.
const (
	VerbCreate       = "create"
	VerbUpdate       = "update"
	VerbUpdateStatus = "update-status"
	VerbDelete       = "delete"
	VerbStart        = "start"     // a simulated process started
	VerbKill         = "kill"      // a simulated process died
	VerbHang         = "hang"      // a simulated process lost the API server
	VerbReconnect    = "reconnect" // a hung process got the API server back
	VerbFault        = "fault"     // a process's API calls fail from now on (Detail: which, with what error)
	VerbClear        = "clear"     // a process's API fault ended (Detail: the fault)
	VerbExpect       = "expect"    // a scenario expectation was checked
	VerbWrite        = "write"     // a node file was written (Detail says how)
	VerbRename       = "rename"    // a node file was renamed to Target
	VerbSymlink      = "symlink"   // a node symlink was made to point to Target
	VerbRemove       = "remove"    // a node file or tree was removed
	VerbLock         = "lock"      // a node lock file was taken
	VerbUnlock       = "unlock"    // a node lock file was released
	VerbProbe        = "probe"     // an HTTP probe got an answer, or none
	VerbSet          = "set"       // a simulated operand changed what it reports
	VerbSkip         = "skip"      // a scenario step did not apply to the subject (Detail says why)
	VerbUnlike       = "unlike"    // a scenario step was carried out as a real cluster does it, unlike the simulated world (Detail says how)
	VerbRecord       = "record"    // a recording of a live API server began (Detail what it watches)
	VerbLost         = "lost"      // a recording lost sight of the API server (Detail why)
	VerbResumed      = "resumed"   // a recording caught up again after a loss (Detail how)
	VerbStop         = "stop"      // a recording ended: it covers the time up to this event
)

// Kinds of objects that are not API objects. Their events carry no group,
// and their verbs are none of the API verbs, so IsWrite is false for them and
// the State never holds them; an API kind of the same name (OLM's Probe
// custom resource) is told apart by its group.
//
//   - Process: a simulated process (Name the actor); verbs start, kill, hang,
//     reconnect, and fault and clear: from a fault to its clear the API
//     server answers some of the process's calls (Detail: reads, writes or
//     both) with an error (Detail: its code and reason) instead of doing
//     them; its failed writes are on the timeline, Failed. The process
//     runs throughout; whether it owes anything meanwhile is the rules'
//     call (judge.Processes counts the fault as unreachable time).
//   - File: a file on a simulated node (Namespace the node, Name the absolute
//     node path); verbs write, rename and symlink (Target the new path or the
//     link's target), remove, lock and unlock.
//   - Probe: an HTTP probe (Namespace the node, empty off a node; Name what
//     was probed as the mechanism names it, such as "kube-apiserver/readyz",
//     never a host and port, which change from run to run); verb probe,
//     Detail the answer's status ("200 OK") or why there was none
//     ("connection refused"), Failed when it did not succeed as the kubelet
//     counts success (an answer from 200 to 399).
//   - Operand: what a simulated operator's operand reports (Name the
//     operator); verb set, Conditions the condition it now reports, whether
//     or not its operator is running to write it.
//   - Step: a scenario step (Name its file and line); verb skip.
//   - Recording: opcert's recorder of a live API server (Name the kinds
//     it watches, "ClusterOperator.config.openshift.io"); verbs record (it
//     listed the kinds and watches them from this instant), lost (a watch
//     broke or expired, 410 Gone: writes from this instant on may be
//     missing, Detail why), resumed (it listed again: what changed while it
//     was lost shows as one write per changed object, at the listing's
//     instant and marked so in Detail), and stop (the recording ended).
//     Each kind is lost and resumed on its own (Name the kind). A lost
//     with no resumed after it runs to the end of the timeline, which is
//     then not complete: its run is the environment's fault (record.Judge).
//     The span from the first kind lost until every one is resumed is a
//     recording gap: rules do not judge what falls in it (judge.Gap).
const (
	KindProcess   = "Process"
	KindFile      = "File"
	KindProbe     = "Probe"
	KindOperand   = "Operand"
	KindStep      = "Step"
	KindRecording = "Recording"
)

// Roles of actors. A mechanism names its roles; "scenario" is the harness.
const (
	RoleScenario = "scenario"
)

// ObjectRef names an object. Names are scenario-local: the run prefix that
// keeps concurrent scenarios apart on one API server is stripped. Group is
// the API group (empty for the core group and for non-API kinds), so that
// kinds of the same name in different groups stay apart.
type ObjectRef struct {
	// Kind is the object's kind ("ClusterOperator"), or a non-API kind ("File", "Process").
	Kind string `json:"kind"`
	// Group is the kind's API group; empty for the core group and non-API kinds.
	Group string `json:"group,omitempty"`
	// Namespace is the object's, run prefix stripped; empty when cluster-scoped.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object's, run prefix stripped (a node path for a file).
	Name string `json:"name"`
}

// String is "Kind/name" or "Kind/namespace/name": the group is left out, as
// a reader of a report knows which kind is meant.
func (o ObjectRef) String() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// Condition is one status condition as the API server stored it.
type Condition struct {
	// Type is the condition type.
	Type string `json:"type"`
	// Status is True, False or Unknown, as stored.
	Status string `json:"status"`
	// Reason is the condition's CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message is the condition's message.
	Message string `json:"message,omitempty"`
	// LastTransitionTime is when Status last changed, as stored.
	LastTransitionTime time.Time `json:"lastTransitionTime"`
}

// ConditionChange is one condition before and after a write; a nil side means
// the condition was absent.
type ConditionChange struct {
	// Type is the condition type that changed.
	Type string `json:"type"`
	// Before is the condition before the write; nil: absent.
	Before *Condition `json:"before,omitempty"`
	// After is the condition after the write; nil: absent.
	After *Condition `json:"after,omitempty"`
}

// FieldChange is one registered field of an object before and after a
// write, each side the field's value as JSON text (object keys sorted); an
// absent side means the field was absent, and JSON null that it was null.
type FieldChange struct {
	// Path is the registered field's path in the object ("status.versions").
	Path string `json:"path"`
	// Before is the field's value before the write; empty: absent.
	Before json.RawMessage `json:"before,omitempty"`
	// After is the field's value after the write; empty: absent.
	After json.RawMessage `json:"after,omitempty"`
}

// Event is one entry of a timeline.
type Event struct {
	// Seq is the event's position on the timeline, from 1, which orders events of one instant.
	Seq int `json:"seq"`
	// Time is when the event happened: the run's clock (virtual or wall).
	Time time.Time `json:"time"`
	// Actor names who did it (a subject's instance, the scenario, the recorder).
	Actor string `json:"actor"`
	// Role is the actor's role in its mechanism, RoleScenario for the scenario's own steps; empty for the recorder's events.
	Role string `json:"role"`
	// Verb says what happened: one of the Verb constants.
	Verb string `json:"verb"`
	// Object is what it happened to.
	Object ObjectRef `json:"object"`
	// Target is where a rename or a symlink points (a node path).
	Target string `json:"target,omitempty"`
	// Conditions are the status conditions the write changed, by type.
	Conditions []ConditionChange `json:"conditions,omitempty"`
	// Fields are the changes to the fields registered for the object's kind,
	// sorted by path.
	Fields []FieldChange `json:"fields,omitempty"`
	// Detail says more, in words: a fault's error, how a file was written, a failure's cause.
	Detail string `json:"detail,omitempty"`
	// Failed is true when the API call was refused or failed: nothing changed.
	Failed bool `json:"failed,omitempty"`
	// Written is, for a write recorded from a live API server, when the
	// server says it was made: the time of the field manager's entry in
	// managedFields, to the second. Time is then when the recorder saw the
	// write, to the millisecond, so Time - Written bounds the recorder's
	// latency (with clock skew and the second's truncation). Zero in
	// virtual time, where Time is exact.
	Written time.Time `json:"written,omitzero"`
}

// ActorRecorder is the actor of what a recorder of a live API server puts
// on a timeline itself: the objects it found when it began (a create,
// Listed), and its record, lost, resumed and stop events.
const ActorRecorder = "recorder"

// Listed tells whether the event is an object found by a recording when it
// began (or after a gap), written before anyone on the timeline could see
// it: its creation is not on the timeline, only its state.
func (e Event) Listed() bool { return e.Verb == VerbCreate && e.Actor == ActorRecorder }

// IsWrite tells whether the event is a successful API write.
func (e Event) IsWrite() bool {
	switch e.Verb {
	case VerbCreate, VerbUpdate, VerbUpdateStatus, VerbDelete:
		return !e.Failed
	}
	return false
}

// Epoch is the virtual instant every simulated run starts at, from which
// a simulated timeline's offsets count.
var Epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Field is the change of path this event records (Event.Fields), if it
// records one: what rules read of a kind's fields beyond its conditions.
func (e Event) Field(path string) (FieldChange, bool) {
	for _, f := range e.Fields {
		if f.Path == path {
			return f, true
		}
	}
	return FieldChange{}, false
}

// Set sets *v to the value after e's change of the field at path, when
// e changes it: the zero value when the change removed the field (or its
// value does not decode into v).
func Set[T any](e Event, path string, v *T) {
	if f, ok := e.Field(path); ok {
		var zero T
		*v = zero
		f.Decode(v)
	}
}

// SetPointer is Set for a field whose absence is nil: *v points to the
// value after e's change of the field, or is nil.
func SetPointer[T any](e Event, path string, v **T) {
	if f, ok := e.Field(path); ok {
		*v = nil
		var x T
		if f.Decode(&x) {
			*v = &x
		}
	}
}

// Decode reads the field's value after the change into v, and tells
// whether there was one: absent or null leaves v as it is.
func (f FieldChange) Decode(v any) bool {
	if len(f.After) == 0 || string(f.After) == "null" {
		return false
	}
	return json.Unmarshal(f.After, v) == nil
}
