package timeline

import (
	"time"
)

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
	VerbExpect       = "expect"    // a scenario expectation was checked
)

// Roles of actors. A mechanism names its roles; "scenario" is the harness.
const (
	RoleScenario = "scenario"
)

// ObjectRef names an object. Names are scenario-local: the run prefix that
// keeps concurrent scenarios apart on one API server is stripped.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (o ObjectRef) String() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// Condition is one status condition as the API server stored it.
type Condition struct {
	Type               string    `json:"type"`
	Status             string    `json:"status"`
	Reason             string    `json:"reason,omitempty"`
	Message            string    `json:"message,omitempty"`
	LastTransitionTime time.Time `json:"lastTransitionTime"`
}

// ConditionChange is one condition before and after a write; a nil side means
// the condition was absent.
type ConditionChange struct {
	Type   string     `json:"type"`
	Before *Condition `json:"before,omitempty"`
	After  *Condition `json:"after,omitempty"`
}

// Event is one entry of a timeline.
type Event struct {
	Seq        int               `json:"seq"`
	Time       time.Time         `json:"time"`
	Actor      string            `json:"actor"`
	Role       string            `json:"role"`
	Verb       string            `json:"verb"`
	Object     ObjectRef         `json:"object"`
	Conditions []ConditionChange `json:"conditions,omitempty"`
	Detail     string            `json:"detail,omitempty"`
	Failed     bool              `json:"failed,omitempty"`
}

// IsWrite tells whether the event is a successful API write.
func (e Event) IsWrite() bool {
	switch e.Verb {
	case VerbCreate, VerbUpdate, VerbUpdateStatus, VerbDelete:
		return !e.Failed
	}
	return false
}
