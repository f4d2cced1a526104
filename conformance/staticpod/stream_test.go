package staticpod_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Judged as it streams past (the facts read event by event, no event
// kept), every built-in's golden timeline, and variants of them with
// events left out, roles taken away and times moved, gets the cases it
// gets when judged whole, with the reference's reaction bound, a tight
// one, and a recording's tolerance; and so does what a recording of the
// API server holds of each (its fallbacks judged as the writes pass, when
// the tolerance is given ahead), and of four variants of each.
func TestStreamJudgesAsBatch(t *testing.T) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	variants := map[string]conformance.Mechanism{"1s reaction": m.(conformance.Reactive).WithReaction(time.Second), "2s tolerance": m.(conformance.Tolerant).WithTolerance(2 * time.Second)}
	conformancetest.GoldensStreamAsBatch(t, m, variants)
	variants["reference"] = m
	for _, g := range conformancetest.GoldenTimelines(t) {
		for name, v := range variants {
			events := recorded(v, g.Events)
			conformancetest.StreamsAsBatch(t, v, g.Name+" recorded ("+name+")", events, g.End)
			for seed := range uint64(4) {
				mutant, end := conformancetest.Mutate(events, g.End, seed)
				conformancetest.StreamsAsBatch(t, v, fmt.Sprintf("%s recorded (%s, mutant %d)", g.Name, name, seed), mutant, end)
			}
		}
	}
}

// What a stream of seed 003 keeps, reported, not asserted (go test -bench
// StreamRetained -run '^$' -short): of a node whose operand answers its
// probes steadily, only the latest answers; of a recording's mirror pod
// writes (a pod flapping), only the pod as last written; of a recording
// of fallbacks, retries and their ends, what the fallbacks not over yet
// keep (B-growth/event).
func BenchmarkStreamRetained(b *testing.B) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	at := func(i int) time.Time { return timeline.Epoch.Add(time.Duration(i) * time.Second) }
	b.Run("probes", func(b *testing.B) { conformancetest.ReportRetained(b, m, 10000, steadyProbe) })
	b.Run("mirror-pods", func(b *testing.B) {
		conformancetest.ReportRetained(b, m, 10000, func(i int) timeline.Event {
			status := []string{"True", "False"}[i%2]
			return timeline.Event{Seq: i + 1, Time: at(i), Actor: "kubelet/node-a", Role: "kubelet", Verb: timeline.VerbUpdateStatus,
				Object:     timeline.ObjectRef{Kind: "Pod", Namespace: "openshift-kube-apiserver", Name: fmt.Sprintf("kube-apiserver-node-%d", i%3)},
				Conditions: []timeline.ConditionChange{{Type: "Ready", After: &timeline.Condition{Type: "Ready", Status: status, LastTransitionTime: at(i)}}}}
		})
	})
	b.Run("fallbacks", func(b *testing.B) { conformancetest.ReportRetained(b, m, 2200, recordedLadder) })
}

// recordedLadder is the i-th write of a recording of the API server (the
// mirror pods and the operator's ClusterOperator, as opcert watch records
// them) over days of a node whose every new revision fails at first: the
// operator asks for revision N, its mirror pod is created not ready, the
// startup-monitor falls back to N-1 five minutes later (the mirror pod
// shows the fallback annotations), the operator reports Degraded=True
// with the fallback message, retries N ten minutes later, N gets ready
// and the operator clears Degraded; forty minutes a revision, eleven
// writes.
func recordedLadder(i int) timeline.Event {
	const per = 11
	k, step := i/per, i%per
	rev := k + 2
	base := timeline.Epoch.Add(time.Duration(k) * 40 * time.Minute)
	ref := func(kind string) timeline.ObjectRef {
		if kind == "Pod" {
			return timeline.ObjectRef{Kind: "Pod", Namespace: "openshift-kube-apiserver", Name: "kube-apiserver-master-0"}
		}
		return timeline.ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: "kube-apiserver"}
	}
	message := fmt.Sprintf("revision %d: /readyz answered 500; unfinished post-start hooks: start-apiextensions-controllers", rev)
	ask := func(at time.Duration, installs int) timeline.Event {
		status := func(n int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`[{"nodeName":"master-0","targetRevision":%d,"installs":%d}]`, rev, n))
		}
		return timeline.Event{Time: base.Add(at), Actor: "cluster-kube-apiserver-operator", Role: staticpod.RoleOperator, Verb: timeline.VerbUpdateStatus, Object: ref("ClusterOperator"),
			Fields: []timeline.FieldChange{{Path: "status.extension.nodeStatuses", Before: status(installs - 1), After: status(installs)}}}
	}
	degraded := func(at time.Duration, status, msg string) timeline.Event {
		c := &timeline.Condition{Type: "Degraded", Status: status, Reason: "AsExpected", Message: msg, LastTransitionTime: base.Add(at)}
		return timeline.Event{Time: base.Add(at), Actor: "cluster-kube-apiserver-operator", Role: staticpod.RoleOperator, Verb: timeline.VerbUpdateStatus, Object: ref("ClusterOperator"),
			Conditions: []timeline.ConditionChange{{Type: "Degraded", After: c}}}
	}
	mirror := func(at time.Duration, verb string, revision int, ready, fallback bool) timeline.Event {
		e := timeline.Event{Time: base.Add(at), Actor: "kubelet", Role: staticpod.RoleKubelet, Verb: verb, Object: ref("Pod")}
		if verb == timeline.VerbDelete {
			return e
		}
		ann := map[string]string{"kubernetes.io/config.mirror": "4c1e5b3a", "revision": strconv.Itoa(revision)}
		if fallback {
			ann["startup-monitor.static-pods.openshift.io/fallback-for-revision"] = strconv.Itoa(rev)
			ann["startup-monitor.static-pods.openshift.io/fallback-reason"] = "NotReady"
			ann["startup-monitor.static-pods.openshift.io/fallback-message"] = message
		}
		raw, _ := json.Marshal(ann)
		e.Fields = []timeline.FieldChange{{Path: "metadata.annotations", After: raw}, {Path: "status.phase", After: json.RawMessage(`"Running"`)}}
		e.Conditions = []timeline.ConditionChange{{Type: "Ready", After: &timeline.Condition{Type: "Ready", Status: map[bool]string{true: "True", false: "False"}[ready], LastTransitionTime: base.Add(at)}}}
		return e
	}
	e := [per]func() timeline.Event{
		func() timeline.Event { return ask(0, 2*k+1) },
		func() timeline.Event { return mirror(10*time.Second, timeline.VerbDelete, 0, false, false) },
		func() timeline.Event { return mirror(10*time.Second, timeline.VerbCreate, rev, false, false) },
		func() timeline.Event {
			return mirror(5*time.Minute+10*time.Second, timeline.VerbDelete, 0, false, false)
		},
		func() timeline.Event {
			return mirror(5*time.Minute+10*time.Second, timeline.VerbCreate, rev-1, true, true)
		},
		func() timeline.Event {
			return degraded(5*time.Minute+20*time.Second, "True", "revision "+strconv.Itoa(rev)+" fell back: "+message)
		},
		func() timeline.Event { return ask(15*time.Minute+20*time.Second, 2*k+2) },
		func() timeline.Event {
			return mirror(15*time.Minute+30*time.Second, timeline.VerbDelete, 0, false, false)
		},
		func() timeline.Event {
			return mirror(15*time.Minute+30*time.Second, timeline.VerbCreate, rev, false, false)
		},
		func() timeline.Event { return mirror(16*time.Minute, timeline.VerbUpdateStatus, rev, true, false) },
		func() timeline.Event { return degraded(16*time.Minute+10*time.Second, "False", "") },
	}[step]()
	e.Seq = i + 1
	return e
}

// A recording of seed 003 read as a stream (opcert analyze, opcert watch:
// the mirror pods and the operator's ClusterOperator, nothing of the
// nodes) keeps what the fallbacks not over yet need, not its writes: days
// of fallbacks, retries and their ends cost at most a few bytes a write
// more than their first hours (what grows is a word or so per revision
// the mirror pods showed, what the node holds to fall back to, and a
// reaction time per fallback until judge.Latencies counts them in
// buckets); and such a recording passes the rules that judge it.
func TestStreamOfARecordingIsBounded(t *testing.T) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	var events []timeline.Event
	for i := range 11 * 40 {
		events = append(events, recordedLadder(i))
	}
	for _, c := range judge.Judge(m.Rules(), events, events[len(events)-1].Time.Add(time.Hour)) {
		want := reports.Skip
		if c.Rule == "STATICPOD-008" || c.Rule == "STATICPOD-015" {
			want = reports.Pass
		}
		if c.Status != want {
			t.Errorf("%s: %s %q, want %s", c.Rule, c.Status, c.Message, want)
		}
	}
	conformancetest.Bounded(t, m, 11000, recordedLadder)
}

// steadyProbe is the i-th answer of a node's operand to its health probe,
// steadily healthy.
func steadyProbe(i int) timeline.Event {
	return timeline.Event{Seq: i + 1, Time: timeline.Epoch.Add(time.Duration(i) * time.Second), Actor: "operand/node-a", Role: "operand", Verb: timeline.VerbProbe, Detail: "200 OK",
		Object: timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: fmt.Sprintf("node-%d", i%3), Name: "kube-apiserver/healthz"}}
}

// A stream keeps only the latest of a node's steady probe answers: they
// cost nothing however many pass (on a timeline that shows the nodes,
// what the rules look back along, the mirror pods' and ClusterOperator's
// writes, is kept: BenchmarkStreamRetained).
func TestStreamKeepsLatestProbes(t *testing.T) {
	conformancetest.Bounded(t, staticpod.Mechanism(staticpod.DefaultConfig()), 10000, steadyProbe)
}
