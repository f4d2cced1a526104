package rules

// Helpers for the contract rules' tests: the seed-001 world on a
// synthetic timeline (doc.go, Timeline contract) — operand specs the
// operator writes, pods the workload controller runs, processes, the
// administrator's ConfigMap — beside the ClusterOperator writes of
// helpers_test.go, and the reference's story built with them.

import (
	"encoding/json"

	"github.com/opcert/opcert/sim/timeline"
)

// story is a builder of a whole component's timeline: its ClusterOperator
// (builder) and the operands' side.
type story struct {
	*builder
	specs  map[string]map[string]string  // workload -> its template labels
	pods   map[string]map[string]string  // pod -> its labels
	ready  map[string]timeline.Condition // pod -> its Ready condition
	blocks map[string]string             // component -> its ConfigMap's data, as JSON
}

func newStory() *story {
	return &story{builder: newTimeline(), specs: map[string]map[string]string{}, pods: map[string]map[string]string{},
		ready: map[string]timeline.Condition{}, blocks: map[string]string{}}
}

func raw(v any) json.RawMessage {
	out, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return out
}

func (s *story) add(off, actor, role, verb string, obj timeline.ObjectRef, fields []timeline.FieldChange, conds []timeline.ConditionChange) *story {
	s.events = append(s.events, timeline.Event{Seq: len(s.events) + 1, Time: at(off), Actor: actor, Role: role, Verb: verb,
		Object: obj, Fields: fields, Conditions: conds})
	return s
}

// co is the operator of component x writing its ClusterOperator (v: the
// operator version it sets, "" to leave versions alone).
func (s *story) co(off, x, v string, conds ...cond) *story {
	s.writeAs(RoleOperator, off, x, v, conds...)
	return s
}

// spec is the operator of component x asking workload name (a
// Deployment or DaemonSet) to run version v; a Deployment is created with
// replicas.
func (s *story) spec(off, x, kind, name, v string, replicas int) *story {
	before, had := s.specs[x+"/"+name]
	after := map[string]string{"opcert.io/operand": "true", labelVersion: v}
	s.specs[x+"/"+name] = after
	verb, fields := timeline.VerbUpdate, []timeline.FieldChange{}
	if !had {
		verb = timeline.VerbCreate
		if kind == kindDeployment {
			fields = append(fields, timeline.FieldChange{Path: fieldReplicas, After: raw(replicas)})
		}
		fields = append(fields, timeline.FieldChange{Path: fieldTemplateLabels, After: raw(after)})
	} else {
		fields = append(fields, timeline.FieldChange{Path: fieldTemplateLabels, Before: raw(before), After: raw(after)})
	}
	return s.add(off, RoleOperator+"/"+x, RoleOperator, verb, timeline.ObjectRef{Kind: kind, Group: appsGroup, Namespace: x, Name: name}, fields, nil)
}

// failedSpec is the operator of x failing to write workload name.
func (s *story) failedSpec(off, x, name string) *story {
	s.add(off, RoleOperator+"/"+x, RoleOperator, timeline.VerbUpdate, timeline.ObjectRef{Kind: kindDeployment, Group: appsGroup, Namespace: x, Name: name}, nil, nil)
	s.events[len(s.events)-1].Failed = true
	return s
}

// desired is the workload controller writing DaemonSet name's status.
func (s *story) desired(off, x, name string, n int) *story {
	return s.add(off, "workload", "workload", timeline.VerbUpdateStatus, timeline.ObjectRef{Kind: kindDaemonSet, Group: appsGroup, Namespace: x, Name: name},
		[]timeline.FieldChange{{Path: fieldStatus, After: raw(map[string]int{"desiredNumberScheduled": n})}}, nil)
}

func podRef(x, name string) timeline.ObjectRef {
	return timeline.ObjectRef{Kind: kindPod, Namespace: x, Name: name}
}

// pod is the workload controller creating pod name of workload at
// version v on node, not ready.
func (s *story) pod(off, x, name, workload, v, node string) *story {
	labels := map[string]string{"opcert.io/operand": "true", labelVersion: v, labelWorkload: workload}
	s.pods[x+"/"+name] = labels
	r := timeline.Condition{Type: condReady, Status: statusFalse, LastTransitionTime: at(off)}
	s.ready[x+"/"+name] = r
	return s.add(off, "workload", "workload", timeline.VerbCreate, podRef(x, name),
		[]timeline.FieldChange{{Path: fieldLabels, After: raw(labels)}, {Path: fieldNodeName, After: raw(node)}},
		[]timeline.ConditionChange{{Type: condReady, After: &r}})
}

// readiness is the workload controller setting pod name's Ready.
func (s *story) readiness(off, x, name, status string) *story {
	before := s.ready[x+"/"+name]
	after := timeline.Condition{Type: condReady, Status: status, LastTransitionTime: at(off)}
	s.ready[x+"/"+name] = after
	return s.add(off, "workload", "workload", timeline.VerbUpdateStatus, podRef(x, name), nil,
		[]timeline.ConditionChange{{Type: condReady, Before: &before, After: &after}})
}

// gone is the workload controller deleting pod name.
func (s *story) gone(off, x, name string) *story {
	before := s.ready[x+"/"+name]
	labels := s.pods[x+"/"+name]
	delete(s.pods, x+"/"+name)
	return s.add(off, "workload", "workload", timeline.VerbDelete, podRef(x, name),
		[]timeline.FieldChange{{Path: fieldLabels, Before: raw(labels)}}, []timeline.ConditionChange{{Type: condReady, Before: &before}})
}

// proc is a process event (start, kill, hang, reconnect) of actor.
func (s *story) proc(off, actor, verb string) *story {
	return s.add(off, actor, RoleOperator, verb, timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}, nil, nil)
}

// fault is an API fault of actor from off to until ("": still at the end),
// with detail: a perturbation window when it starts
// timeline.PerturbationDetail.
func (s *story) fault(off, until, actor, detail string) *story {
	s.proc(off, actor, timeline.VerbFault)
	s.events[len(s.events)-1].Detail = detail
	if until != "" {
		s.proc(until, actor, timeline.VerbClear)
		s.events[len(s.events)-1].Detail = detail
	}
	return s
}

// blocker is the scenario writing ConfigMap x-admin's upgradeBlocker.
func (s *story) blocker(off, x, text string) *story {
	before, had := s.blocks[x]
	after := string(raw(map[string]string{keyBlocker: text}))
	s.blocks[x] = after
	verb := timeline.VerbUpdate
	f := timeline.FieldChange{Path: fieldData, Before: json.RawMessage(before), After: json.RawMessage(after)}
	if !had {
		verb, f.Before = timeline.VerbCreate, nil
	}
	return s.add(off, "scenario", "scenario", verb, timeline.ObjectRef{Kind: kindConfigMap, Namespace: x, Name: x + adminSuffix},
		[]timeline.FieldChange{f}, nil)
}

// named gives a condition another type (Failing for Degraded).
func (x cond) named(typ string) cond { x.typ = typ; return x }

// The reference's messages for component etcd.
func towards(v, n string) cond {
	return c(condProgressing, statusTrue, "Working towards "+v+": "+n+" pods updated")
}
func atVersion(v string) cond {
	return c(condProgressing, statusFalse, "Component etcd is at version "+v)
}
func deployed(v string) cond { return c(condAvailable, statusTrue, "Component etcd has deployed "+v) }

// installed is the reference installing component etcd at 4.0.0: a
// Deployment of one replica and a DaemonSet on two nodes, ready at 30s,
// and one write at completion carrying the versions, Available True and
// Progressing False stamped then.
func installed() *story {
	return newStory().proc("0s", "operator/etcd", timeline.VerbStart).
		co("0s", "etcd", "", c(condAvailable, statusFalse, "Component etcd has not yet deployed 4.0.0").because("Installing"),
			towards("4.0.0", "0 of 3"), c(condDegraded, statusFalse, ""), c(condUpgradeable, statusTrue, "")).
		spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).
		spec("0s", "etcd", kindDaemonSet, "etcd-agent", "4.0.0", 0).
		pod("0s", "etcd", "etcd-4.0.0-0", "etcd", "4.0.0", "master-0").
		pod("0s", "etcd", "etcd-agent-4.0.0-master-0", "etcd-agent", "4.0.0", "master-0").
		pod("0s", "etcd", "etcd-agent-4.0.0-master-1", "etcd-agent", "4.0.0", "master-1").
		desired("0s", "etcd", "etcd-agent", 2).
		readiness("30s", "etcd", "etcd-4.0.0-0", statusTrue).
		readiness("30s", "etcd", "etcd-agent-4.0.0-master-0", statusTrue).
		readiness("30s", "etcd", "etcd-agent-4.0.0-master-1", statusTrue).
		co("30s", "etcd", "4.0.0", deployed("4.0.0"), atVersion("4.0.0"))
}

// upgrading is installed with the rollout to 4.0.1 begun at 10m and half
// done at 10m30s (the Deployment surges a pod, the DaemonSet replaces
// master-0's), the operator reporting Progressing as it goes.
func upgrading() *story { return rollingOut(installed(), true) }

// rollingOut is the rollout to 4.0.1 of upgrading on s, with the
// operator's Progressing writes if progressing.
func rollingOut(s *story, progressing bool) *story {
	say := func(off string, conds ...cond) {
		if progressing {
			s.co(off, "etcd", "", conds...)
		}
	}
	s.spec("10m", "etcd", kindDeployment, "etcd", "4.0.1", 1).
		spec("10m", "etcd", kindDaemonSet, "etcd-agent", "4.0.1", 0)
	say("10m", towards("4.0.1", "0 of 3"))
	s.pod("10m", "etcd", "etcd-4.0.1-0", "etcd", "4.0.1", "master-1").
		gone("10m", "etcd", "etcd-agent-4.0.0-master-0").
		pod("10m", "etcd", "etcd-agent-4.0.1-master-0", "etcd-agent", "4.0.1", "master-0").
		readiness("10m30s", "etcd", "etcd-4.0.1-0", statusTrue).
		gone("10m30s", "etcd", "etcd-4.0.0-0").
		readiness("10m30s", "etcd", "etcd-agent-4.0.1-master-0", statusTrue)
	say("10m30s", towards("4.0.1", "2 of 3"))
	return s.gone("10m30s", "etcd", "etcd-agent-4.0.0-master-1").
		pod("10m30s", "etcd", "etcd-agent-4.0.1-master-1", "etcd-agent", "4.0.1", "master-1")
}

// lastPodReady is the last pod of the upgrade turning ready at off.
func (s *story) lastPodReady(off string) *story {
	return s.readiness(off, "etcd", "etcd-agent-4.0.1-master-1", statusTrue)
}

// reference is the reference's whole story: installed, upgraded to 4.0.1
// complete at 11m, with one write at completion.
func reference() *story {
	return upgrading().lastPodReady("11m").co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1"))
}
