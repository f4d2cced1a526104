package rules

// Helpers for the STATICPOD rule tests: a small builder of synthetic
// timelines that follow the timeline contract (doc.go), the seed's
// stories built with it, and one table runner shared by every rule.
//
// Offsets are Go duration strings ("6m") from timeline.Epoch, the way the
// rules print them ("+6m0s").

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func d(s string) time.Duration {
	v, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return v
}

func at(s string) time.Time { return timeline.Epoch.Add(d(s)) }

// mirrorState is what the builder last wrote of a node's mirror pod.
type mirrorState struct {
	ann   json.RawMessage
	ready *timeline.Condition
}

// builder records a synthetic timeline. File, probe and mirror pod events
// are about the node named by on (master-0 unless changed).
type builder struct {
	node    string
	events  []timeline.Event
	mirrors map[string]*mirrorState
	co      *timeline.Condition
	// statuses is the operator's node statuses as last written (its asks).
	statuses map[string]nodeStatus
}

func newTimeline() *builder {
	return &builder{node: "master-0", mirrors: map[string]*mirrorState{}, statuses: map[string]nodeStatus{}}
}

// on switches the node the next calls are about.
func (b *builder) on(node string) *builder { b.node = node; return b }

// actor is the contract's actor name of a role on the current node.
func (b *builder) actor(role string) string {
	if role == RoleOperator {
		return operatorActor
	}
	return role + "/" + b.node
}

func (b *builder) add(off, role, verb string, obj timeline.ObjectRef, edit func(*timeline.Event)) *builder {
	e := timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: b.actor(role), Role: role, Verb: verb, Object: obj}
	if edit != nil {
		edit(&e)
	}
	b.events = append(b.events, e)
	return b
}

// file records a change of a node file; detail is the Detail, or the
// Target of a rename or symlink.
func (b *builder) file(off, role, verb, p, detail string) *builder {
	return b.add(off, role, verb, timeline.ObjectRef{Kind: timeline.KindFile, Namespace: b.node, Name: p}, func(e *timeline.Event) {
		if verb == timeline.VerbRename || verb == timeline.VerbSymlink {
			e.Target = detail
		} else {
			e.Detail = detail
		}
	})
}

func (b *builder) lock(off, role string) *builder {
	return b.file(off, role, timeline.VerbLock, lockFile, "")
}

func (b *builder) unlock(off, role string) *builder {
	return b.file(off, role, timeline.VerbUnlock, lockFile, "")
}

// manifest writes the operand manifest of rev (extra: the fallback part).
func (b *builder) manifest(off, role string, rev int, extra string) *builder {
	return b.file(off, role, timeline.VerbWrite, operandManifest, fmt.Sprintf("revision=%d%s", rev, extra))
}

// install is the operator asking for rev (a rollout or a retry), and the
// installer rolling it out at once under the lock: its resources, the
// startup-monitor's manifest, then the operand's.
func (b *builder) install(off string, rev int) *builder {
	return b.ask(off, rev).reinstall(off, rev)
}

// ask is the operator asking the node's installer for rev: a write of its
// status with the node's count of asks one up.
func (b *builder) ask(off string, rev int) *builder {
	marshal := func() json.RawMessage {
		var list []nodeStatus
		for _, name := range slices.Sorted(maps.Keys(b.statuses)) {
			list = append(list, b.statuses[name])
		}
		raw, _ := json.Marshal(list)
		return raw
	}
	before := marshal()
	if len(b.statuses) == 0 {
		before = nil
	}
	ns := b.statuses[b.node]
	ns.NodeName, ns.TargetRevision, ns.Installs = b.node, rev, ns.Installs+1
	b.statuses[b.node] = ns
	obj := timeline.ObjectRef{Kind: "ClusterOperator", Group: configGroup, Name: clusterOperator}
	return b.add(off, RoleOperator, timeline.VerbUpdateStatus, obj, func(e *timeline.Event) {
		e.Fields = []timeline.FieldChange{{Path: fieldNodeStatuses, Before: before, After: marshal()}}
	})
}

// reinstall is the installer writing rev without a new ask: one it did not
// finish before, carried out again.
func (b *builder) reinstall(off string, rev int) *builder {
	return b.lock(off, RoleInstaller).
		file(off, RoleInstaller, timeline.VerbWrite, revisionDir(rev)+"/kube-apiserver-pod.yaml", "1200 bytes").
		file(off, RoleInstaller, timeline.VerbWrite, monitorManifest, fmt.Sprintf("revision=%d", rev)).
		manifest(off, RoleInstaller, rev, "").
		unlock(off, RoleInstaller)
}

// running is rev already installed and ready at off, without a monitor
// (the revision a cluster starts from), linked as last-known-good.
func (b *builder) running(off string, rev int) *builder {
	return b.file(off, RoleInstaller, timeline.VerbWrite, revisionDir(rev)+"/kube-apiserver-pod.yaml", "1200 bytes").
		manifest(off, RoleInstaller, rev, "").started(off).ready(off, rev).link(off, rev)
}

// started is one start attempt of the operand: a line in termination.log.
func (b *builder) started(off string) *builder {
	return b.file(off, "kubelet", timeline.VerbWrite, terminationLog, "append 64 bytes")
}

// startedWith is a start attempt whose line carries a termination
// message (sim/node's format).
func (b *builder) startedWith(off string, rev, k int, msg string) *builder {
	line := fmt.Sprintf("%s kube-apiserver revision %d start %d: %s", at(off).UTC().Format(time.RFC3339), rev, k, msg)
	return b.file(off, "kubelet", timeline.VerbWrite, terminationLog, fmt.Sprintf("append %d bytes: %s", len(line)+1, line))
}

// terminated is the kubelet showing the operand container's last exit,
// with msg, on the node's mirror pod.
func (b *builder) terminated(off, msg string) *builder {
	raw, _ := json.Marshal([]any{map[string]any{"name": "kube-apiserver",
		"lastState": map[string]any{"terminated": map[string]any{"exitCode": 1, "reason": "Error", "message": msg}}}})
	obj := timeline.ObjectRef{Kind: "Pod", Namespace: mirrorNamespace, Name: mirrorPrefix + b.node}
	return b.add(off, "kubelet", timeline.VerbUpdateStatus, obj, func(e *timeline.Event) {
		e.Fields = []timeline.FieldChange{{Path: "status.containerStatuses", After: raw}}
	})
}

func (b *builder) probe(off, endpoint, detail string) *builder {
	code, _ := strconv.Atoi(strings.SplitN(detail, " ", 2)[0])
	return b.add(off, "operand", timeline.VerbProbe, timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: b.node, Name: endpoint}, func(e *timeline.Event) {
		e.Detail, e.Failed = detail, code < 200 || code > 399
	})
}

// answers records the operand's /healthz, /healthz/etcd and /readyz.
func (b *builder) answers(off, healthz, etcd, readyz string) *builder {
	return b.probe(off, probeHealthz, healthz).probe(off, probeEtcd, etcd).probe(off, probeReadyz, readyz)
}

const (
	ok      = "200 OK"
	refused = "connection refused"
	failed  = "500 Internal Server Error"
	hookRed = failed + "\n[-]poststarthook/start-apiextensions-controllers failed: reason withheld"
	etcdRed = failed + "\n[-]etcd failed: reason withheld"
)

func (b *builder) up(off string) *builder     { return b.answers(off, ok, ok, ok) }
func (b *builder) silent(off string) *builder { return b.answers(off, refused, refused, refused) }
func (b *builder) hookStuck(off string) *builder {
	return b.answers(off, ok, ok, hookRed)
}

// mirror is the kubelet writing the node's mirror pod at rev; fallback,
// if given, is the three annotations' values (for, reason, message).
func (b *builder) mirror(off string, rev int, ready bool, fallback ...string) *builder {
	ann := map[string]string{revisionAnnotation: strconv.Itoa(rev)}
	if len(fallback) == 3 {
		ann[annotationFallbackFor], ann[annotationFallbackReason], ann[annotationFallbackMessage] = fallback[0], fallback[1], fallback[2]
	}
	raw, _ := json.Marshal(ann)
	status := map[bool]string{true: "True", false: "False"}[ready]
	cond := &timeline.Condition{Type: "Ready", Status: status, LastTransitionTime: at(off)}
	m, exists := b.mirrors[b.node]
	verb := timeline.VerbUpdate
	if !exists {
		m, verb = &mirrorState{}, timeline.VerbCreate
		b.mirrors[b.node] = m
	}
	ch := timeline.ConditionChange{Type: "Ready", Before: m.ready, After: cond}
	fields := []timeline.FieldChange{{Path: "metadata.annotations", Before: m.ann, After: raw}}
	if !exists {
		fields = append(fields, timeline.FieldChange{Path: "status.phase", After: json.RawMessage(`"Running"`)})
	}
	m.ann, m.ready = raw, cond
	obj := timeline.ObjectRef{Kind: "Pod", Namespace: mirrorNamespace, Name: mirrorPrefix + b.node}
	return b.add(off, "kubelet", verb, obj, func(e *timeline.Event) {
		e.Conditions, e.Fields = []timeline.ConditionChange{ch}, fields
	})
}

// mirrorGone is the kubelet deleting the node's mirror pod.
func (b *builder) mirrorGone(off string) *builder {
	delete(b.mirrors, b.node)
	return b.add(off, "kubelet", timeline.VerbDelete, timeline.ObjectRef{Kind: "Pod", Namespace: mirrorNamespace, Name: mirrorPrefix + b.node}, nil)
}

// ready is the operand of rev answering and its mirror pod ready.
func (b *builder) ready(off string, rev int) *builder { return b.up(off).mirror(off, rev, true) }

// link is the startup-monitor pointing last-known-good at rev.
func (b *builder) link(off string, rev int) *builder {
	return b.file(off, RoleStartupMonitor, timeline.VerbSymlink, lastKnownGood, revisionDir(rev))
}

// done is the startup-monitor's end after readiness (003 §Proposal step
// 2): under the lock, link last-known-good, remove its own manifest.
func (b *builder) done(off string, rev int) *builder {
	return b.lock(off, RoleStartupMonitor).link(off, rev).
		file(off, RoleStartupMonitor, timeline.VerbRemove, monitorManifest, "").unlock(off, RoleStartupMonitor)
}

// gone is the startup-monitor removing its own manifest.
func (b *builder) gone(off string) *builder {
	return b.file(off, RoleStartupMonitor, timeline.VerbRemove, monitorManifest, "")
}

// fallbackNote is the Detail's fallback part.
func fallbackNote(from int, reason, message string) string {
	return fmt.Sprintf(" fallback-for-revision=%d fallback-reason=%s fallback-message=%s", from, reason, message)
}

// fellBack is the startup-monitor writing revision to's manifest with the
// given Detail tail, under the lock, and removing its own manifest.
func (b *builder) fellBack(off string, to int, note string) *builder {
	return b.lock(off, RoleStartupMonitor).
		manifest(off, RoleStartupMonitor, to, note).
		file(off, RoleStartupMonitor, timeline.VerbRemove, monitorManifest, "").
		unlock(off, RoleStartupMonitor)
}

// fallback is the startup-monitor falling back from revision from to to,
// then the kubelet running to again with the annotations.
func (b *builder) fallback(off string, from, to int, reason, message string) *builder {
	return b.fellBack(off, to, fallbackNote(from, reason, message)).
		up(off).mirror(off, to, true, strconv.Itoa(from), reason, message)
}

// retyped renames the operator's condition everywhere on the timeline
// (library-go's StaticPodFallbackRevisionDegraded for the seed's Degraded).
func (b *builder) retyped(conditionType string) *builder {
	for i := range b.events {
		for k := range b.events[i].Conditions {
			ch := &b.events[i].Conditions[k]
			if b.events[i].Object.Kind != "ClusterOperator" {
				continue
			}
			ch.Type = conditionType
			for _, c := range []**timeline.Condition{&ch.Before, &ch.After} {
				if *c != nil {
					cp := **c
					cp.Type = conditionType
					*c = &cp
				}
			}
		}
	}
	return b
}

// condition is the operator writing its fallback condition.
func (b *builder) condition(off, status, message string) *builder {
	after := &timeline.Condition{Type: seedCondition, Status: status, Reason: "AsExpected", Message: message, LastTransitionTime: at(off)}
	verb := timeline.VerbUpdateStatus
	if b.co == nil {
		verb = timeline.VerbCreate
	}
	ch := timeline.ConditionChange{Type: seedCondition, Before: b.co, After: after}
	b.co = after
	obj := timeline.ObjectRef{Kind: "ClusterOperator", Group: configGroup, Name: clusterOperator}
	return b.add(off, RoleOperator, verb, obj, func(e *timeline.Event) { e.Conditions = []timeline.ConditionChange{ch} })
}

// process records a start, kill, hang or reconnect of a role's process.
func (b *builder) process(off, role, verb string) *builder {
	return b.add(off, role, verb, timeline.ObjectRef{Kind: timeline.KindProcess, Name: b.actor(role)}, nil)
}

// prune is the pruner removing a revision's directory.
func (b *builder) prune(off string, rev int) *builder {
	return b.file(off, RolePruner, timeline.VerbRemove, revisionDir(rev), "directory")
}

// The seed's stories on the reference's schedule.

const (
	notReadyMsg = "/readyz answered 500; unfinished post-start hooks: start-apiextensions-controllers"
	crashMsg    = "3 start-up attempts in termination.log"
	neverMsg    = "no start-up attempt in termination.log"
)

// rollout: revision 1 runs, revision 2 is installed at +1m and ready at
// +1m30s; the monitor links it and goes.
func rollout() *builder { return readied().done("1m30s", 2) }

// readied is rollout up to revision 2's readiness at +1m30s: what its
// startup-monitor does then is left to the caller.
func readied() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
		ready("1m30s", 2)
}

// stuckHook: revision 2 never finishes a post-start hook, is fallen back
// from at +6m with NotReady, retried at +16m, ready at +16m30s.
func stuckHook() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
		fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", "revision 2 fell back: "+notReadyMsg).
		install("16m", 2).started("16m").hookStuck("16m").mirror("16m", 2, false).
		ready("16m30s", 2).done("16m30s", 2).condition("16m30s", "False", "")
}

// crashLoop: revision 2 exits at every start, is fallen back from at +6m
// with CrashLooping and never retried.
func crashLoop() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).silent("1m").started("1m").started("1m11s").started("1m32s").mirror("1m", 2, false).
		fallback("6m", 2, 1, reasonCrashLooping, crashMsg).condition("6m", "True", "revision 2 fell back: "+crashMsg)
}

const flagMsg = "Error: unknown flag: --foo"

// crashLoopTerminated: crashLoop, each start printing flagMsg, which the
// mirror pod shows from +1m1s; the operator's condition carries it.
func crashLoopTerminated() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).silent("1m").startedWith("1m", 2, 1, flagMsg).mirror("1m", 2, false).terminated("1m1s", flagMsg).
		startedWith("1m11s", 2, 2, flagMsg).startedWith("1m32s", 2, 3, flagMsg).
		fallback("6m", 2, 1, reasonCrashLooping, crashMsg).
		condition("6m", "True", "revision 2 fell back: "+crashMsg+"\nTermination message of revision 2: "+flagMsg)
}

// ruleCase is one row of a rule's table.
type ruleCase struct {
	name     string
	tl       *builder
	end      string  // the run's end, as an offset
	cfg      *Config // exact() when nil
	want     reports.Status
	message  []string // what the verdict's message must contain
	evidence []string // offsets of exactly the evidence events
}

func ruleByID(t *testing.T, cfg Config, id string) judge.Rule {
	t.Helper()
	for _, r := range Rules(cfg) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return judge.Rule{}
}

func verdictOf(t *testing.T, id string, tc ruleCase) judge.Verdict {
	t.Helper()
	cfg := *exact()
	if tc.cfg != nil {
		cfg = *tc.cfg
	}
	return ruleByID(t, cfg, id).Check(judge.NewJudging(tc.tl.events, at(tc.end)))
}

// runTable judges every case with rule id and checks the verdict.
func runTable(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := verdictOf(t, id, tc)
			if v.Status != tc.want {
				t.Fatalf("status %s, want %s; message: %s", v.Status, tc.want, v.Message)
			}
			for _, m := range tc.message {
				if !strings.Contains(v.Message, m) {
					t.Errorf("message %q does not contain %q", v.Message, m)
				}
			}
			if got, want := offsets(v.Evidence), uniqueSorted(tc.evidence); !reflect.DeepEqual(got, want) {
				t.Errorf("evidence at %v, want %v", got, want)
			}
		})
	}
}

func offsets(evs []timeline.Event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Time.Sub(timeline.Epoch).String())
	}
	return uniqueSorted(out)
}

func uniqueSorted(offs []string) []string {
	out := []string{}
	for _, o := range offs {
		out = append(out, d(o).String())
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(d(a), d(b)) })
	return slices.Compact(out)
}

// libraryGo is the library-go profile for a table row, without a reaction
// bound.
func libraryGo() *Config { c := LibraryGo(); c.Reaction = 0; return &c }

// exact is the seed profile without a reaction bound: the tables' default,
// so that a row shows the rule's instants; rows with bound() show what the
// default bound accepts.
func exact() *Config { c := DefaultConfig(); c.Reaction = 0; return &c }

// bound is the seed profile as the rules are built by default, with the
// default reaction bound.
func bound() *Config { c := DefaultConfig(); return &c }
