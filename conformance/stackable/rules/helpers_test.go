package rules

// Helpers for the STACKABLE rule tests: a builder of synthetic timelines
// that follow the timeline contract (doc.go), a healthy cluster built with
// it, and one table runner shared by every rule.
//
// Offsets are Go duration strings ("6m") from timeline.Epoch, the way the
// rules print them ("+6m0s").

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func at(off string) time.Time {
	d, err := time.ParseDuration(off)
	if err != nil {
		panic(err)
	}
	return timeline.Epoch.Add(d)
}

const ns = "data"

// The cluster of the tests and its workloads.
var (
	c1     = timeline.ObjectRef{Kind: kindCluster, Group: groupSamples, Namespace: ns, Name: "c1"}
	server = timeline.ObjectRef{Kind: kindStatefulSet, Group: groupApps, Namespace: ns, Name: "c1-server"}
	web    = timeline.ObjectRef{Kind: kindDeployment, Group: groupApps, Namespace: ns, Name: "c1-web"}
	agent  = timeline.ObjectRef{Kind: kindDaemonSet, Group: groupApps, Namespace: ns, Name: "c1-agent"}
)

// podRef is a pod of the tests' namespace.
func podRef(name string) timeline.ObjectRef {
	return timeline.ObjectRef{Kind: kindPod, Namespace: ns, Name: name}
}

// cond is a condition as a write sets it. Its lastTransitionTime is the
// write's when its status changes (or it is added) and the one before
// otherwise, unless stamped says which; its lastProbeTime is the write's,
// unless probed says which ("none": absent).
type cond struct {
	typ, status, reason, message string
	stamped, probed              string
}

func (x cond) at(off string) cond { x.stamped = off; return x }

func (x cond) probedAt(off string) cond { x.probed = off; return x }

func (x cond) because(reason, message string) cond { x.reason, x.message = reason, message; return x }

// builder records a synthetic timeline.
type builder struct {
	events []timeline.Event
	conds  map[timeline.ObjectRef][]timeline.Condition
	fields map[timeline.ObjectRef]map[string]json.RawMessage
}

func newTimeline() *builder {
	return &builder{conds: map[timeline.ObjectRef][]timeline.Condition{}, fields: map[timeline.ObjectRef]map[string]json.RawMessage{}}
}

// raw marshals a field's value.
func raw(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// write records a write of ref by actor (its role the actor's name):
// fields the registered fields it sets (a nil value removes one), conds,
// when not nil, the object's whole list of conditions after it.
func (b *builder) write(off, actor, verb string, ref timeline.ObjectRef, fields map[string]any, conds []cond) *builder {
	e := timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: actor, Role: actor, Verb: verb, Object: ref}
	old := b.fields[ref]
	if old == nil || verb == timeline.VerbCreate {
		old = map[string]json.RawMessage{}
	}
	now := maps.Clone(old)
	for k, v := range fields {
		if v == nil {
			delete(now, k)
		} else {
			now[k] = raw(v)
		}
	}
	if verb == timeline.VerbDelete {
		now = map[string]json.RawMessage{}
	}
	keys := slices.Sorted(maps.Keys(old))
	for k := range now {
		if _, ok := old[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, p := range keys {
		if !bytes.Equal(old[p], now[p]) {
			e.Fields = append(e.Fields, timeline.FieldChange{Path: p, Before: old[p], After: now[p]})
		}
	}
	b.fields[ref] = now
	before := b.conds[ref]
	after := before
	if conds != nil {
		after = nil
		for _, x := range conds {
			a := timeline.Condition{Type: x.typ, Status: x.status, Reason: x.reason, Message: x.message, LastTransitionTime: at(off)}
			for _, o := range before {
				if o.Type == x.typ && o.Status == x.status {
					a.LastTransitionTime = o.LastTransitionTime
				}
			}
			if x.stamped != "" {
				a.LastTransitionTime = at(x.stamped)
			}
			after = append(after, a)
		}
	}
	if verb == timeline.VerbDelete {
		after = nil
	}
	e.Conditions = timeline.Diff(before, after)
	b.conds[ref] = after
	b.events = append(b.events, e)
	return b
}

// verbFor is create the first time ref is written, update after.
func (b *builder) verbFor(ref timeline.ObjectRef) string {
	if _, ok := b.fields[ref]; ok {
		return timeline.VerbUpdate
	}
	return timeline.VerbCreate
}

// clusterSpec is a SampleCluster's spec: its roles, operator-rs's
// switches, and broken.
type specOf struct {
	Roles            []map[string]any `json:"roles"`
	ClusterOperation clusterOperation `json:"clusterOperation"`
	Broken           string           `json:"broken,omitempty"`
}

// cluster is the scenario writing c1 (creating it the first time) with
// the operator-command annotation ("" none) and spec.
func (b *builder) cluster(off, command string, spec specOf) *builder {
	var ann any = map[string]string{}
	if command != "" {
		ann = map[string]string{annotationCommand: command}
	}
	return b.write(off, "scenario", b.verbFor(c1), c1, map[string]any{fieldAnnotations: ann, fieldSpec: spec}, nil)
}

// command is the scenario setting c1's operator-command ("" removes it).
func (b *builder) command(off, command string) *builder {
	var ann any = map[string]string{}
	if command != "" {
		ann = map[string]string{annotationCommand: command}
	}
	return b.write(off, "scenario", timeline.VerbUpdate, c1, map[string]any{fieldAnnotations: ann}, nil)
}

// spec is the scenario writing c1's spec.
func (b *builder) spec(off string, spec specOf) *builder {
	return b.write(off, "scenario", timeline.VerbUpdate, c1, map[string]any{fieldSpec: spec}, nil)
}

// roleLabels are the labels of role's pod template in c1.
func roleLabels(role string) map[string]string {
	return map[string]string{labelInstance: "c1", "app.kubernetes.io/component": role}
}

// workload is actor writing one of c1's workloads (creating it the first
// time) with spec.replicas (a DaemonSet's is ignored).
func (b *builder) workload(off, actor string, ref timeline.ObjectRef, replicas int) *builder {
	role := strings.TrimPrefix(ref.Name, "c1-")
	fields := map[string]any{fieldTemplateLabels: roleLabels(role)}
	if ref.Kind != kindDaemonSet {
		fields[fieldReplicas] = replicas
	}
	return b.write(off, actor, b.verbFor(ref), ref, fields, nil)
}

// counted is the workload controller publishing a StatefulSet's or a
// Deployment's available replicas.
func (b *builder) counted(off string, ref timeline.ObjectRef, available int) *builder {
	return b.write(off, "workload", timeline.VerbUpdateStatus, ref, map[string]any{fieldStatus: map[string]int{"availableReplicas": available}}, nil)
}

// scheduled is the DaemonSet controller publishing c1-agent's counts.
func (b *builder) scheduled(off string, desired, available, ready int) *builder {
	return b.write(off, "workload", timeline.VerbUpdateStatus, agent, map[string]any{fieldStatus: map[string]int{
		"desiredNumberScheduled": desired, "numberAvailable": available, "numberReady": ready}}, nil)
}

// pod is the workload controller or kubelet writing a pod of role
// (creating it the first time) in phase.
func (b *builder) pod(off, role, name, phase string) *builder {
	ref := podRef(name)
	fields := map[string]any{fieldPhase: phase}
	if b.verbFor(ref) == timeline.VerbCreate {
		fields[fieldLabels] = roleLabels(role)
	}
	return b.write(off, "workload", b.verbFor(ref), ref, fields, nil)
}

// gonePod is a pod deleted.
func (b *builder) gonePod(off, name string) *builder {
	return b.write(off, "workload", timeline.VerbDelete, podRef(name), nil, nil)
}

// status is the operator writing c1's conditions, recorded as the diff
// and as status.conditions with lastProbeTime.
func (b *builder) status(off string, conds ...cond) *builder {
	prev := map[string]timeline.Condition{}
	for _, c := range b.conds[c1] {
		prev[c.Type] = c
	}
	list := []map[string]any{}
	for _, x := range conds {
		ltt := at(off)
		if o, ok := prev[x.typ]; ok && o.Status == x.status {
			ltt = o.LastTransitionTime
		}
		if x.stamped != "" {
			ltt = at(x.stamped)
		}
		entry := map[string]any{"type": x.typ, "status": x.status, "reason": x.reason, "message": x.message,
			"lastTransitionTime": ltt.Format(time.RFC3339), "lastProbeTime": at(off).Format(time.RFC3339)}
		switch x.probed {
		case "":
		case "none":
			delete(entry, "lastProbeTime")
		default:
			entry["lastProbeTime"] = at(x.probed).Format(time.RFC3339)
		}
		list = append(list, entry)
	}
	return b.write(off, RoleOperator, timeline.VerbUpdateStatus, c1, map[string]any{fieldConditions: list}, conds)
}

// process is a Process event of the operator.
func (b *builder) process(off, verb string) *builder {
	b.events = append(b.events, timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: "scenario", Role: "scenario", Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actorOperator}})
	return b
}

// gap is a recording gap from one offset to another.
func (b *builder) gap(from, to string) *builder {
	rec := timeline.ObjectRef{Kind: timeline.KindRecording, Name: "SampleCluster.samples.opcert.io"}
	b.events = append(b.events,
		timeline.Event{Seq: len(b.events) + 1, Time: at(from), Actor: "recorder", Verb: timeline.VerbLost, Object: rec, Detail: "410 Gone"},
		timeline.Event{Seq: len(b.events) + 2, Time: at(to), Actor: "recorder", Verb: timeline.VerbResumed, Object: rec})
	return b
}

// The table's "Example Message" column, verbatim (004 §Implementation
// details), with "[Pod1,Pod2]" and "[Unknown,Failed]" as %s: what the
// reference writes, one faithful wording the tests write.
const (
	msgDesired          = "The cluster has the desired amount of replicas."
	msgNotDesired       = "The cluster does not have the desired amount of replicas."
	msgAvailableUnknown = "The cluster has not the desired amount of replicas. At least one Pod %s has phase Unknown."
	msgStarting         = "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."
	msgPodFailed        = "The cluster does not have the desired amount of replicas. At least one Pod %s has Phase Failed."
	msgDegraded         = "The cluster has less than the desired amount of replicas. At least one Pod %s has Phase %s."
	msgPaused           = "The cluster is currently not reconciled by the operator."
	msgNotPaused        = "The cluster is currently reconciled by the operator."
	msgStopped          = "The cluster is currently stopped. All replicas are set to 0."
	msgNotStopped       = "The cluster is currently not stopped."

	// msgNoPods is Available's message once stopped, the ADR's second example
	// (004 §Set Status Conditions Only; decision 004,
	// conformance/stackable/README.md).
	msgNoPods = "No Pods running."
)

// Reasons: the ADR gives none; these are the reference's, one per row.
const (
	reasonAvailable     = "Available"
	reasonUnavailable   = "ReplicasUnavailable"
	reasonPhaseUnknown  = "PodPhaseUnknown"
	reasonStopped       = "Stopped"
	reasonStarting      = "ReplicasStarting"
	reasonReplicasReady = "ReplicasAvailable"
	reasonPodFailed     = "PodFailed"
	reasonPodsUnhealthy = "PodsUnhealthy"
	reasonNotDegraded   = "NotDegraded"
	reasonPaused        = "Paused"
	reasonReconciling   = "Reconciling"
	reasonRunning       = "Running"
)

// The conditions as the table words them (the seed profile).
func c(typ, status string) cond { return cond{typ: typ, status: status} }

func available() cond { return c(condAvailable, statusTrue).because(reasonAvailable, msgDesired) }

func unavailable() cond {
	return c(condAvailable, statusFalse).because(reasonUnavailable, msgNotDesired)
}

func availabilityUnknown(pods string) cond {
	return c(condAvailable, statusUnknown).because(reasonPhaseUnknown, fmt.Sprintf(msgAvailableUnknown, pods))
}

func noPods() cond { return c(condAvailable, statusFalse).because(reasonStopped, msgNoPods) }

func settled() cond { return c(condProgressing, statusFalse).because(reasonReplicasReady, msgDesired) }

func starting() cond { return c(condProgressing, statusTrue).because(reasonStarting, msgStarting) }

func podFailed(pods string) cond {
	return c(condProgressing, statusFalse).because(reasonPodFailed, fmt.Sprintf(msgPodFailed, pods))
}

func notDegraded() cond { return c(condDegraded, statusFalse).because(reasonNotDegraded, msgDesired) }

func degraded(pods, phases string) cond {
	return c(condDegraded, statusTrue).because(reasonPodsUnhealthy, fmt.Sprintf(msgDegraded, pods, phases))
}

func reconciling() cond { return c(condPaused, statusFalse).because(reasonReconciling, msgNotPaused) }

func pausedCond() cond { return c(condPaused, statusTrue).because(reasonPaused, msgPaused) }

func running() cond { return c(condStopped, statusFalse).because(reasonRunning, msgNotStopped) }

func stoppedCond() cond { return c(condStopped, statusTrue).because(reasonStopped, msgStopped) }

// roles is c1's spec with the server StatefulSet of 2 replicas.
func roles() specOf {
	return specOf{Roles: []map[string]any{{"name": "server", "kind": kindStatefulSet, "replicas": 2}}}
}

// started is c1 made at 0s and up at 30s: the operator creates its
// StatefulSet of two, the pods start, and the conditions follow.
func started() *builder {
	return newTimeline().process("0s", timeline.VerbStart).
		cluster("0s", "", roles()).
		workload("0s", RoleOperator, server, 2).
		pod("0s", "server", "c1-server-0", "Pending").pod("0s", "server", "c1-server-1", "Pending").
		status("0s", unavailable(), starting(), notDegraded(), reconciling(), running()).
		pod("30s", "server", "c1-server-0", "Running").pod("30s", "server", "c1-server-1", "Running").
		counted("30s", server, 2).
		status("30s", available(), settled(), notDegraded(), reconciling(), running())
}

// failed is started with c1-server-1 failing at 2m, as the table reads it.
func failed() *builder {
	return started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
		status("2m", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running())
}

// lost is started with c1-server-0's node lost at 2m (phase Unknown).
func lost() *builder {
	return started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).
		status("2m", availabilityUnknown("[c1-server-0]"), starting(), degraded("[c1-server-0]", "[Unknown]"), reconciling(), running())
}

// stopped is started with operator-command Stopped at 3m: the operator
// scales to 0, the pods go, the conditions say so.
func stopped() *builder {
	return started().command("3m", commandStopped).
		workload("3m", RoleOperator, server, 0).
		gonePod("3m", "c1-server-0").gonePod("3m", "c1-server-1").counted("3m", server, 0).
		status("3m", noPods(), settled(), notDegraded(), reconciling(), stoppedCond())
}

// paused is started with operator-command Paused at 3m, then the role's
// replicas raised to 3 at 4m: the operator only publishes, the cluster
// short of one replica.
func paused() *builder {
	more := roles()
	more.Roles[0]["replicas"] = 3
	return started().command("3m", commandPaused).
		status("3m", available(), settled(), notDegraded(), pausedCond(), running()).
		spec("4m", more).
		status("4m", unavailable(), starting(), notDegraded(), pausedCond(), running())
}

// roles1 is c1's spec with the server StatefulSet of 1 replica.
func roles1() specOf {
	return specOf{Roles: []map[string]any{{"name": "server", "kind": kindStatefulSet, "replicas": 1}}}
}

// newJudging is tl's judging, the timeline ending at +1h.
func newJudging(tl *builder) *judge.Judging { return judge.NewJudging(tl.events, at("1h")) }

// ruleCase is one row of a rule's table.
type ruleCase struct {
	name     string
	tl       *builder
	cfg      *Config // DefaultConfig without a reaction bound when nil
	strict   bool    // judged with --strict
	want     reports.Status
	message  []string // what the verdict's message must contain
	evidence []string // offsets of exactly the evidence events, in order, when given
}

// runTable judges every case with rule id on a timeline that ends at
// +1h, through judge.JudgeWith so that gaps excuse as in a run,
// and checks the verdict.
func runTable(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Reaction = 0
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			var rule judge.Rule
			for _, r := range Rules(cfg) {
				if r.ID == id {
					rule = r
				}
			}
			if rule.Check == nil {
				t.Fatalf("no rule %s", id)
			}
			j := newJudging(tc.tl)
			j.Strict = tc.strict
			got := judge.JudgeWith([]judge.Rule{rule}, j)[0]
			if got.Status != tc.want {
				t.Fatalf("status %s, want %s; message: %s", got.Status, tc.want, got.Message)
			}
			for _, m := range tc.message {
				if !strings.Contains(got.Message, m) {
					t.Errorf("message %q does not contain %q", got.Message, m)
				}
			}
			offs := []string{}
			for _, e := range got.Evidence {
				offs = append(offs, e.Time.Sub(timeline.Epoch).String())
			}
			want := []string{}
			for _, off := range tc.evidence {
				want = append(want, at(off).Sub(timeline.Epoch).String())
			}
			if tc.evidence != nil && !reflect.DeepEqual(offs, want) {
				t.Errorf("evidence at %v, want %v", offs, want)
			}
		})
	}
}
