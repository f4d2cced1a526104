package stackable

// Flaw is a deliberate deviation of the operator from seed 004, for the
// broken subjects that prove the STACKABLE rules can fail. "" is the
// reference. A flaw applies to the seed profile.
type Flaw string

// The flaws, each a single deviation.
const (
	// IgnoresUnknown reads a pod of phase Unknown as Running: Available
	// False instead of Unknown, and no Degraded for it (breaks 004
	// §Implementation details, Available Unknown and Degraded True).
	IgnoresUnknown Flaw = "ignores-unknown"
	// NeverDegraded always publishes Degraded False (breaks 004
	// §Implementation details, Degraded True).
	NeverDegraded Flaw = "never-degraded"
	// WritesWhilePaused keeps creating, updating and deleting the
	// workloads while the cluster is Paused (breaks 004 §Implementation
	// details, Paused True: "not reconciled by the operator").
	WritesWhilePaused Flaw = "writes-while-paused"
	// StopKeepsReplicas publishes Stopped True but leaves the workloads'
	// replicas as the roles ask (breaks 004 §Implementation details,
	// Stopped True: "All replicas are set to 0").
	StopKeepsReplicas Flaw = "stop-keeps-replicas"
	// StoppedAvailable publishes Available by the letter of its row while
	// stopped: True once 0 of 0 replicas are available (breaks DESIGN 004:
	// Stopped means Available False).
	StoppedAvailable Flaw = "stopped-available"
	// PublishesOnError writes the conditions of what it observes even when
	// its reconcile fails (breaks 004 §Implementation details' precondition
	// "Reconcile without errors").
	PublishesOnError Flaw = "publishes-on-error"
	// MovingTransition sets every lastTransitionTime to the write's time,
	// whether its status changed or not (breaks DESIGN 004: it moves only
	// with the status).
	MovingTransition Flaw = "moving-transition"
	// ProgressingOnFailed publishes Progressing True although a pod Failed
	// (breaks 004 §Implementation details, Progressing False's second
	// row).
	ProgressingOnFailed Flaw = "progressing-on-failed"
	// NoProbeTime omits lastProbeTime (breaks 004 §Set Status Conditions
	// Only's examples, where every condition carries it).
	NoProbeTime Flaw = "no-probe-time"
	// Late writes, at each reconcile, the conditions the reconcile before
	// it computed: one change behind (breaks DESIGN 004: the conditions
	// match the table within one reconcile).
	Late Flaw = "late"
	// SilentPause stops writing the workloads while Paused, as it must,
	// but publishes Paused False (breaks 004 §Implementation details,
	// Paused True).
	SilentPause Flaw = "silent-pause"
)

var flaws = []struct {
	flaw Flaw
	says string
}{
	{IgnoresUnknown, "reads a pod of phase Unknown as Running: Available False instead of Unknown, no Degraded for it"},
	{NeverDegraded, "always publishes Degraded False"},
	{WritesWhilePaused, "keeps creating, updating and deleting the workloads while Paused"},
	{StopKeepsReplicas, "publishes Stopped True but leaves the workloads' replicas"},
	{StoppedAvailable, "publishes Available by the letter of its row while stopped (True at 0 of 0 replicas)"},
	{PublishesOnError, "writes the conditions it observes even when its reconcile fails"},
	{MovingTransition, "moves every condition's lastTransitionTime to now on every write"},
	{ProgressingOnFailed, "publishes Progressing True although a pod has phase Failed"},
	{NoProbeTime, "omits lastProbeTime"},
	{Late, "writes the conditions only at the next reconcile after a change: one change behind"},
	{SilentPause, "pauses, but publishes Paused False"},
}

// Flaws lists every flaw, in a stable order, for a registry of broken
// subjects.
func Flaws() []Flaw {
	out := make([]Flaw, len(flaws))
	for i, f := range flaws {
		out[i] = f.flaw
	}
	return out
}

// Description is the flaw's one-line description, "" for the reference.
func (f Flaw) Description() string {
	for _, d := range flaws {
		if d.flaw == f {
			return d.says
		}
	}
	return ""
}
