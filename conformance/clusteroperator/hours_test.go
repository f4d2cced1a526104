package clusteroperator_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// hours is a component's life hour after hour, as a live cluster records
// it, one event at a time (next): ClusterOperator etcd installed at
// 4.1.0 in the first hour, then upgraded to the next version at the top
// of every hour (the operator says it is working towards it, writes the
// Deployment's spec, a new pod comes up and the old one goes, the
// operator reports the version and comes to rest); in every hour the
// kubelet and the workload controller write the pod's and the
// Deployment's status each minute, the pod turns unready and ready again
// three times (the operator reporting the outage and the recovery), and
// the administrator sets an upgrade blocker at :30 and clears it at :40
// (the operator reporting Upgradeable False, then True). Every rule of
// seed 001 passes it. Events are asked for in order from 0; asking for 0
// starts again.
type hours struct {
	hour  []timeline.Event // the events of the hour under way
	first int              // the index of its first event
	seq   int
	conds map[string]timeline.Condition // the ClusterOperator's
	ready timeline.Condition            // the pod's Ready
}

func (h *hours) next(i int) timeline.Event {
	if i == 0 {
		*h = hours{}
		h.write(0, 0)
	}
	for i-h.first >= len(h.hour) {
		h.first += len(h.hour)
		h.write(len(h.hour), h.hourOf(h.hour[len(h.hour)-1].Time)+1)
	}
	return h.hour[i-h.first]
}

func (h *hours) hourOf(t time.Time) int { return int(t.Sub(timeline.Epoch) / time.Hour) }

// version is the version the component runs from hour n.
func version(n int) string { return fmt.Sprintf("4.%d.0", n+1) }

func pod(n int) string { return "etcd-" + version(n) }

const component = "etcd"

func jsonOf(v any) json.RawMessage {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return out
}

// write makes hour n's events (a fresh hour slice of about cap events).
func (h *hours) write(capacity, n int) {
	h.hour = make([]timeline.Event, 0, capacity)
	at := func(d time.Duration) time.Time { return timeline.Epoch.Add(time.Duration(n)*time.Hour + d) }
	v := version(n)
	if n == 0 {
		h.conds = map[string]timeline.Condition{}
		h.co(at(0), timeline.VerbCreate, "",
			cond("Available", "False", "Installing", "Component etcd has not yet deployed "+v),
			cond("Progressing", "True", "Installing", "Working towards "+v),
			cond("Degraded", "False", "AsExpected", ""), cond("Upgradeable", "True", "AsExpected", ""))
		h.spec(at(0), timeline.VerbCreate, v)
	} else {
		h.co(at(0), timeline.VerbUpdateStatus, "", cond("Progressing", "True", "RollingOut", "Working towards "+v))
		h.spec(at(0), timeline.VerbUpdate, v)
	}
	h.podCreated(at(0), n)
	h.readiness(at(40*time.Second), n, "True")
	if n > 0 {
		h.podGone(at(40*time.Second), n-1)
	}
	h.co(at(41*time.Second), timeline.VerbUpdateStatus, v,
		cond("Available", "True", "AsExpected", "Component etcd has deployed "+v),
		cond("Progressing", "False", "AsExpected", "Component etcd is at version "+v))
	for m := 1; m < 60; m++ {
		t := at(time.Duration(m) * time.Minute)
		h.add(t, "kubelet", "kubelet", timeline.VerbUpdateStatus, timeline.ObjectRef{Kind: "Pod", Namespace: component, Name: pod(n)},
			[]timeline.FieldChange{{Path: "status.containerStatuses", After: jsonOf([]map[string]any{{"name": "etcd", "restartCount": m % 3}})}}, nil)
		h.add(t, "workload", "workload", timeline.VerbUpdateStatus, timeline.ObjectRef{Kind: "Deployment", Group: "apps", Namespace: component, Name: component},
			[]timeline.FieldChange{{Path: "status", After: jsonOf(map[string]int{"readyReplicas": 1, "observedGeneration": n + 1})}}, nil)
		switch m {
		case 15, 35, 50: // an outage of the pod, reported and recovered
			h.readiness(t.Add(time.Second), n, "False")
			h.co(t.Add(3*time.Second), timeline.VerbUpdateStatus, "", cond("Available", "False", "NoReadyPod", "Component etcd has no ready pod"))
			h.readiness(t.Add(20*time.Second), n, "True")
			h.co(t.Add(22*time.Second), timeline.VerbUpdateStatus, "", cond("Available", "True", "AsExpected", "Component etcd has deployed "+v))
		case 30:
			h.blocker(t.Add(time.Second), n == 0, "Nodes must be updated to "+v+" first")
			h.co(t.Add(4*time.Second), timeline.VerbUpdateStatus, "", cond("Upgradeable", "False", "NodesBehind", "Update the nodes to "+v+" before upgrading"))
		case 40:
			h.blocker(t.Add(time.Second), false, "")
			h.co(t.Add(4*time.Second), timeline.VerbUpdateStatus, "", cond("Upgradeable", "True", "AsExpected", ""))
		}
	}
}

type condition struct{ typ, status, reason, message string }

func cond(typ, status, reason, message string) condition {
	return condition{typ, status, reason, message}
}

func (h *hours) add(t time.Time, actor, role, verb string, obj timeline.ObjectRef, fields []timeline.FieldChange, conds []timeline.ConditionChange) {
	h.seq++
	h.hour = append(h.hour, timeline.Event{Seq: h.seq, Time: t, Actor: actor, Role: role, Verb: verb, Object: obj, Fields: fields, Conditions: conds})
}

// co is the operator writing its ClusterOperator: conds, and versions[operator]
// = v unless v is "".
func (h *hours) co(t time.Time, verb, v string, conds ...condition) {
	var changes []timeline.ConditionChange
	for _, c := range conds {
		after := timeline.Condition{Type: c.typ, Status: c.status, Reason: c.reason, Message: c.message, LastTransitionTime: t}
		before, had := h.conds[c.typ]
		if had && before.Status == c.status {
			after.LastTransitionTime = before.LastTransitionTime
		}
		ch := timeline.ConditionChange{Type: c.typ, After: &after}
		if had {
			ch.Before = &before
		}
		changes = append(changes, ch)
		h.conds[c.typ] = after
	}
	var fields []timeline.FieldChange
	if v != "" {
		fields = []timeline.FieldChange{{Path: "status.versions", After: jsonOf([]map[string]string{{"name": "operator", "version": v}})}}
		if n := h.hourOf(t); n > 0 {
			fields[0].Before = jsonOf([]map[string]string{{"name": "operator", "version": version(n - 1)}})
		}
	}
	h.add(t, "operator/"+component, "operator", verb, timeline.ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: component}, fields, changes)
}

// spec is the operator asking its Deployment of one replica to run v.
func (h *hours) spec(t time.Time, verb, v string) {
	fields := []timeline.FieldChange{{Path: "spec.template.metadata.labels", After: jsonOf(map[string]string{"opcert.io/version": v})}}
	if verb == timeline.VerbCreate {
		fields = append(fields, timeline.FieldChange{Path: "spec.replicas", After: jsonOf(1)})
	}
	h.add(t, "operator/"+component, "operator", verb, timeline.ObjectRef{Kind: "Deployment", Group: "apps", Namespace: component, Name: component}, fields, nil)
}

func (h *hours) podCreated(t time.Time, n int) {
	h.ready = timeline.Condition{Type: "Ready", Status: "False", LastTransitionTime: t}
	r := h.ready
	h.add(t, "workload", "workload", timeline.VerbCreate, timeline.ObjectRef{Kind: "Pod", Namespace: component, Name: pod(n)},
		[]timeline.FieldChange{{Path: "metadata.labels", After: jsonOf(map[string]string{"opcert.io/version": version(n), "opcert.io/workload": component})},
			{Path: "spec.nodeName", After: jsonOf("master-0")}},
		[]timeline.ConditionChange{{Type: "Ready", After: &r}})
}

func (h *hours) readiness(t time.Time, n int, status string) {
	before := h.ready
	h.ready = timeline.Condition{Type: "Ready", Status: status, LastTransitionTime: t}
	after := h.ready
	h.add(t, "workload", "workload", timeline.VerbUpdateStatus, timeline.ObjectRef{Kind: "Pod", Namespace: component, Name: pod(n)}, nil,
		[]timeline.ConditionChange{{Type: "Ready", Before: &before, After: &after}})
}

// podGone is the workload controller deleting the pod of hour n.
func (h *hours) podGone(t time.Time, n int) {
	h.add(t, "workload", "workload", timeline.VerbDelete, timeline.ObjectRef{Kind: "Pod", Namespace: component, Name: pod(n)},
		[]timeline.FieldChange{{Path: "metadata.labels", Before: jsonOf(map[string]string{"opcert.io/version": version(n), "opcert.io/workload": component})}}, nil)
}

// blocker is the administrator writing ConfigMap etcd-admin's
// upgradeBlocker ("" clears it).
func (h *hours) blocker(t time.Time, create bool, text string) {
	verb := timeline.VerbUpdate
	if create {
		verb = timeline.VerbCreate
	}
	h.add(t, "admin", "admin", verb, timeline.ObjectRef{Kind: "ConfigMap", Namespace: component, Name: component + "-admin"},
		[]timeline.FieldChange{{Path: "data", After: jsonOf(map[string]string{"upgradeBlocker": text})}}, nil)
}
