package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// failing is revision 1 running and linked, and revision 2 installed at
// +1m with a post-start hook that never finishes: its fallback is due at
// +6m.
func failing() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false)
}

// unlinked is failing without a last-known-good link: revision 1 runs
// (ready, its directory on the node, never linked) and revision 2, whose
// post-start hook never finishes, is installed at +1m; with revision 1
// still there, its fallback is due at +6m.
func unlinked() *builder {
	return newTimeline().file("0s", RoleInstaller, timeline.VerbWrite, revisionDir(1)+"/kube-apiserver-pod.yaml", "1200 bytes").
		manifest("0s", RoleInstaller, 1, "").started("0s").ready("0s", 1).
		install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false)
}

// tolerance is the seed's configuration with some slack.
func tolerance(s string) *Config { c := exact(); c.Tolerance = d(s); return c }

// 003 §Readiness: the timeout is 5 min, and the monitor falls back then.
func TestSTATICPOD001FallbackInTime(t *testing.T) {
	runTable(t, "STATICPOD-001", []ruleCase{
		{name: "reference: ready at +1m30s", tl: rollout(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: fallback at +6m, retry ready", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: crash loop", tl: crashLoop(), end: "30m", want: reports.Pass},
		{name: "replaced by a new revision before its timeout",
			tl:  failing().install("3m", 3).started("3m").ready("3m30s", 3).done("3m30s", 3),
			end: "30m", want: reports.Pass, message: []string{"1 judged", "1 not judged"}},
		{name: "the running revision's manifest written again unchanged: no new start", tl: rollout().install("10m", 2), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "500ms late within a tolerance of 1s",
			tl: failing().fallback("6m0.5s", 2, 1, reasonNotReady, notReadyMsg), end: "30m", cfg: tolerance("1s"), want: reports.Pass},
		{name: "the installer held the lock at the deadline: due at its unlock",
			tl:  failing().lock("5m50s", RoleInstaller).unlock("6m10s", RoleInstaller).fallback("6m10s", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Pass},
		{name: "fallen back from before the timeout",
			tl: failing().fallback("4m", 2, 1, reasonNotReady, notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{"revision 2 on master-0", "+4m0s", "3m0s after", "before the 5m0s timeout"}, evidence: []string{"1m", "4m"}},
		{name: "fallen back from late",
			tl: failing().fallback("7m", 2, 1, reasonNotReady, notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{"+7m0s", "due at +6m0s"}, evidence: []string{"1m", "7m"}},
		{name: "faithful: fallen back from a minute late, within the default reaction bound",
			tl: failing().fallback("7m", 2, 1, reasonNotReady, notReadyMsg), end: "30m", cfg: bound(), want: reports.Pass},
		{name: "faithful: ready 40s after the timeout, before a monitor reacting within the bound fell back",
			tl: failing().ready("6m40s", 2), end: "30m", cfg: bound(), want: reports.Pass},
		{name: "fallen back from later than the reaction bound",
			tl: failing().fallback("7m1s", 2, 1, reasonNotReady, notReadyMsg), end: "30m", cfg: bound(),
			want: reports.Fail, message: []string{"+7m1s", "due at +6m0s"}, evidence: []string{"1m", "7m1s"}},
		{name: "the bound gives no slack on the early side",
			tl: failing().fallback("5m59s", 2, 1, reasonNotReady, notReadyMsg), end: "30m", cfg: bound(),
			want: reports.Fail, message: []string{"before the 5m0s timeout"}, evidence: []string{"1m", "5m59s"}},
		{name: "late after the installer's unlock",
			tl:  failing().lock("5m50s", RoleInstaller).unlock("6m10s", RoleInstaller).fallback("6m20s", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Fail, message: []string{"+6m20s", "due at +6m10s"}, evidence: []string{"1m", "6m20s"}},
		{name: "never fallen back from",
			tl: failing(), end: "30m",
			want: reports.Fail, message: []string{"neither ready nor fallen back from by +6m0s, and not by the end of the run at +30m0s"}, evidence: []string{"1m"}},
		{name: "ready after the timeout without a fallback",
			tl: failing().ready("7m", 2), end: "30m",
			want: reports.Fail, message: []string{"by +6m0s"}, evidence: []string{"1m"}},
		{name: "fallen back from once ready",
			tl: failing().ready("2m", 2).fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{"+6m0s", "ready at +2m0s"}, evidence: []string{"1m", "2m", "6m"}},
		{name: "the failure names the node",
			tl:  rollout().on("master-1").running("0s", 1).install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false),
			end: "30m", want: reports.Fail, message: []string{"revision 2 on master-1"}, evidence: []string{"1m"}},
		{name: "the run ends before the timeout",
			tl: failing(), end: "5m", want: reports.Skip, message: []string{"not judged", "not due before the end of the run at +5m0s"}},
		{name: "late, the monitor stopped with its fallback",
			tl: failing().fallback("7m", 2, 1, reasonNotReady, notReadyMsg).process("7m", RoleStartupMonitor, timeline.VerbKill), end: "30m",
			want: reports.Fail, message: []string{"+7m0s", "due at +6m0s"}, evidence: []string{"1m", "7m"}},
		{name: "the monitor was down",
			tl: failing().process("2m", RoleStartupMonitor, timeline.VerbKill).process("8m", RoleStartupMonitor, timeline.VerbStart).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Skip, message: []string{"startup-monitor/master-0 was down"}},
		// An identical rewrite (an installer redoing an ask it did not
		// finish) starts nothing: the timeout runs from the first write.
		{name: "a manifest written again unchanged is no new start",
			tl:  failing().reinstall("2m", 2).fallback("6m", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "the timeout does not run from an unchanged rewrite",
			tl:  failing().reinstall("2m", 2).fallback("7m", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Fail, message: []string{"manifest written at +1m0s", "due at +6m0s"}, evidence: []string{"1m", "7m"}},
		{name: "a rewrite with another content is a new start",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Pass, message: []string{"2 judged"}},
		// A restarted monitor judges what it sees: a readiness it was down
		// for is not held against its fallback.
		{name: "ready only while the monitor was down: its late fallback is excused",
			tl: failing().process("1m", RoleStartupMonitor, timeline.VerbStart).process("1m30s", RoleStartupMonitor, timeline.VerbKill).
				ready("2m", 2).mirror("5m", 2, false).process("6m", RoleStartupMonitor, timeline.VerbStart).
				fallback("11m", 2, 1, reasonUnhealthy, "x"),
			end: "30m", want: reports.Skip, message: []string{"startup-monitor/master-0 was down before its fallback was due"}},
		{name: "ready while the restarted monitor ran: no fallback",
			tl: failing().process("1m", RoleStartupMonitor, timeline.VerbStart).process("1m30s", RoleStartupMonitor, timeline.VerbKill).
				ready("2m", 2).process("4m", RoleStartupMonitor, timeline.VerbStart).mirror("5m", 2, false).
				fallback("9m", 2, 1, reasonUnhealthy, "x"),
			end: "30m", want: reports.Fail, message: []string{"although its operand was ready at +2m0s"}, evidence: []string{"1m", "2m", "9m"}},
		{name: "restarted, it still may not fall back early",
			tl: failing().process("1m", RoleStartupMonitor, timeline.VerbStart).process("1m30s", RoleStartupMonitor, timeline.VerbKill).
				ready("2m", 2).mirror("3m", 2, false).process("4m", RoleStartupMonitor, timeline.VerbStart).
				fallback("5m", 2, 1, reasonUnhealthy, "x"),
			end: "30m", want: reports.Fail, message: []string{"before the 5m0s timeout"}, evidence: []string{"1m", "5m"}},
		{name: "bootstrap: nothing to fall back to",
			tl:  newTimeline().install("0s", 1).started("0s").hookStuck("0s").mirror("0s", 1, false),
			end: "30m", want: reports.Skip, message: []string{"nothing to fall back to"}},
		// 003 §Proposal step 1: "or don't do anything if there is no
		// previous revision". Whether a fallback is owed is decided on what
		// the node holds when it is due, not when the revision was written.
		{name: "no link, the previous revision pruned after the install: nothing owed at the deadline",
			tl:  unlinked().prune("1m", 1),
			end: "30m", want: reports.Skip, message: []string{"nothing to fall back to when its fallback was due at +6m0s", "no revision below 2"}},
		{name: "no link, the previous revision pruned: nothing owed, the next revision judged",
			tl:  unlinked().prune("1m", 1).install("10m", 3).started("10m").ready("10m30s", 3).done("10m30s", 3),
			end: "30m", want: reports.Pass, message: []string{"1 judged", "1 not judged", "nothing to fall back to"}},
		{name: "a mirror pod of the pruned revision brings nothing back",
			tl:  unlinked().prune("1m", 1).mirror("2m", 1, false).mirror("2m", 2, false),
			end: "30m", want: reports.Skip, message: []string{"nothing to fall back to"}},
		{name: "no link, the previous revision pruned while the installer held the lock past the deadline",
			tl:  unlinked().lock("5m50s", RoleInstaller).prune("6m", 1).unlock("6m10s", RoleInstaller),
			end: "30m", want: reports.Skip, message: []string{"nothing to fall back to when its fallback was due at +6m10s"}},
		{name: "no link, the previous revision pruned only after the deadline: the fallback was owed",
			tl:  unlinked().prune("7m", 1),
			end: "30m", want: reports.Fail, message: []string{"neither ready nor fallen back from by +6m0s"}, evidence: []string{"1m"}},
		{name: "no link, the previous revision pruned but an older one left: the fallback was owed",
			tl: newTimeline().file("0s", RoleInstaller, timeline.VerbWrite, revisionDir(1)+"/kube-apiserver-pod.yaml", "1200 bytes").
				file("0s", RoleInstaller, timeline.VerbWrite, revisionDir(2)+"/kube-apiserver-pod.yaml", "1200 bytes").
				manifest("0s", RoleInstaller, 2, "").started("0s").ready("0s", 2).
				install("1m", 3).started("1m").hookStuck("1m").mirror("1m", 3, false).prune("1m", 2),
			end: "30m", want: reports.Fail, message: []string{"revision 3", "neither ready nor fallen back from by +6m0s"}, evidence: []string{"1m"}},
		{name: "the previous revision pruned, last-known-good still linked: the fallback was owed",
			tl: newTimeline().running("0s", 1).
				file("30s", RoleInstaller, timeline.VerbWrite, revisionDir(2)+"/kube-apiserver-pod.yaml", "1200 bytes").
				manifest("30s", RoleInstaller, 2, "").started("30s").ready("30s", 2).
				install("1m", 3).started("1m").hookStuck("1m").mirror("1m", 3, false).prune("1m", 2),
			end: "30m", want: reports.Fail, message: []string{"revision 3", "neither ready nor fallen back from by +6m0s"}, evidence: []string{"1m"}},
		{name: "no startup-monitor", tl: newTimeline().running("0s", 1), end: "30m", want: reports.Skip},
		{name: "empty timeline", tl: newTimeline(), end: "30m", want: reports.Skip},
	})
}

// etcdStuck: revision 2 never reaches etcd, which shows on /healthz too.
func etcdStuck() *builder {
	return newTimeline().running("0s", 1).install("1m", 2).started("1m").
		answers("1m", failed, failed, etcdRed).mirror("1m", 2, false)
}

// 003 §Readiness: the reasons, in the seed's order; docs/upstream.md for
// library-go's.
func TestSTATICPOD002RightReason(t *testing.T) {
	refusedOnce := newTimeline().running("0s", 1).install("1m", 2).started("1m").silent("1m").mirror("1m", 2, false)
	runTable(t, "STATICPOD-002", []ruleCase{
		{name: "reference: NotReady naming the hook", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: CrashLooping", tl: crashLoop(), end: "30m", want: reports.Pass},
		{name: "starts count from the first write, not from an unchanged rewrite",
			tl: failing().reinstall("2m", 2).fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "an unchanged rewrite does not make a started operand NeverStartedUp",
			tl: failing().reinstall("2m", 2).fallback("6m", 2, 1, reasonNeverStartedUp, neverMsg), end: "30m",
			want: reports.Fail, message: []string{`with reason "NeverStartedUp", want NotReady`}, evidence: []string{"1m", "6m"}},
		{name: "NeverStartedUp",
			tl:  newTimeline().running("0s", 1).install("1m", 2).silent("1m").fallback("6m", 2, 1, reasonNeverStartedUp, neverMsg),
			end: "30m", want: reports.Pass},
		{name: "one start, nothing listening: Unhealthy",
			tl: refusedOnce.fallback("6m", 2, 1, reasonUnhealthy, "/healthz: connection refused"), end: "30m", want: reports.Pass},
		{name: "etcd down: Unhealthy by the seed's order",
			tl: etcdStuck().fallback("6m", 2, 1, reasonUnhealthy, "/healthz answered 500"), end: "30m", want: reports.Pass},
		{name: "etcd down: EtcdUnhealthy by the seed's Test Plan",
			tl: etcdStuck().fallback("6m", 2, 1, reasonEtcdUnhealthy, "etcd failed"), end: "30m", want: reports.Pass},
		{name: "/readyz lists etcd, /healthz green: EtcdUnhealthy",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").answers("1m", ok, ok, etcdRed).mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonEtcdUnhealthy, "etcd failed"), end: "30m", want: reports.Pass},
		{name: "mirror pod left at the old revision: NotReady",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").
				fallback("6m", 2, 1, reasonNotReady, "the mirror pod is at revision 1"), end: "30m", want: reports.Pass},
		{name: "library-go: nothing listening is a NetworkError",
			tl:  newTimeline().running("0s", 1).install("1m", 2).started("1m").silent("1m").mirror("1m", 2, false).fallback("6m", 2, 1, reasonNetworkError, "connection refused"),
			cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "no mirror pod: NotReady",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").mirrorGone("1m").
				fallback("6m", 2, 1, reasonNotReady, "no mirror pod"), end: "30m", want: reports.Pass},
		{name: "the mirror pod not ready: NotReady",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonNotReady, "not ready"), end: "30m", want: reports.Pass},
		{name: "library-go: a stuck hook is NotReady",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, hookRed), cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "library-go: etcd first",
			tl: etcdStuck().fallback("6m", 2, 1, reasonEtcdUnhealthy, etcdRed), cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "library-go: the mirror pod at the old revision",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").
				fallback("6m", 2, 1, reasonUnexpectedRevision, "found 1"), cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "library-go: no mirror pod",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").mirrorGone("1m").
				fallback("6m", 2, 1, reasonPodNotRunning, "no pod"), cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "library-go: the mirror pod not ready",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").up("1m").mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonPodNodReady, "not ready"), cfg: libraryGo(), end: "30m", want: reports.Pass},
		{name: "library-go: etcd down called Unhealthy",
			tl: etcdStuck().fallback("6m", 2, 1, reasonUnhealthy, "unhealthy"), cfg: libraryGo(), end: "30m",
			want: reports.Fail, message: []string{"want EtcdUnhealthy: /healthz/etcd answered \"500 Internal Server Error\""}, evidence: []string{"1m", "6m"}},
		{name: "a fallback first on the timeline",
			tl: newTimeline().fellBack("5m", 1, fallbackNote(2, reasonNotReady, notReadyMsg)), end: "30m",
			want: reports.Skip, message: []string{"replaced no manifest on the timeline"}},
		{name: "crash loop called Unhealthy",
			tl:  newTimeline().running("0s", 1).install("1m", 2).silent("1m").started("1m").started("1m11s").mirror("1m", 2, false).fallback("6m", 2, 1, reasonUnhealthy, "down"),
			end: "30m", want: reports.Fail, message: []string{"master-0 fell back from revision 2 at +6m0s", `"Unhealthy"`, "want CrashLooping", "2 start-up attempts"},
			evidence: []string{"1m", "6m"}},
		{name: "faithful: NotReady without the hook in its message (STATICPOD-013's Style question)",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, "not ready"), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "etcd down called NotReady",
			tl: etcdStuck().fallback("6m", 2, 1, reasonNotReady, "not ready"), end: "30m",
			want: reports.Fail, message: []string{"want Unhealthy or EtcdUnhealthy", "with etcd failing"}, evidence: []string{"1m", "6m"}},
		{name: "fallen back from a ready operand",
			tl: failing().ready("2m", 2).fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{"but its operand was ready"}, evidence: []string{"1m", "6m"}},
		{name: "library-go has no CrashLooping",
			tl: crashLoop(), cfg: libraryGo(), end: "30m",
			want: reports.Fail, message: []string{"want NetworkError", "/healthz/etcd"}, evidence: []string{"1m", "6m"}},
		{name: "no fallback", tl: rollout(), end: "30m", want: reports.Skip},
	})
}

// 003 §Readiness: the message "should contain the unfinished
// post-start-hooks" (Style).
func TestSTATICPOD013HooksNamed(t *testing.T) {
	runTable(t, "STATICPOD-013", []ruleCase{
		{name: "reference: the hook named", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "NotReady without the hook in its message",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, "not ready"), end: "30m",
			want: reports.Fail, message: []string{"does not name the unfinished post-start hooks start-apiextensions-controllers"}, evidence: []string{"1m", "6m"}},
		{name: "a wrong reason is STATICPOD-002's, not judged here",
			tl: failing().fallback("6m", 2, 1, reasonUnhealthy, "not ready"), end: "30m", want: reports.Skip},
		{name: "a crash loop has no hooks to name", tl: crashLoop(), end: "30m", want: reports.Skip},
	})
	if r := ruleByID(t, DefaultConfig(), "STATICPOD-013"); !r.Style {
		t.Error("STATICPOD-013 is a Style rule: the seed says \"should\"")
	}
}

// 003 §Proposal step 1: the three annotations, copied to the mirror pod.
func TestSTATICPOD003Annotated(t *testing.T) {
	runTable(t, "STATICPOD-003", []ruleCase{
		{name: "reference", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: crash loop", tl: crashLoop(), end: "30m", want: reports.Pass},
		{name: "the mirror pod not written yet: the manifest is judged",
			tl: failing().fellBack("6m", 1, fallbackNote(2, reasonNotReady, notReadyMsg)), end: "6m",
			want: reports.Pass, message: []string{"1 judged", "no mirror pod of revision 1"}},
		{name: "the kubelet adds the annotations on its second write",
			tl: failing().fellBack("6m", 1, fallbackNote(2, reasonNotReady, notReadyMsg)).ready("6m", 1).
				mirror("6m5s", 1, true, "2", reasonNotReady, notReadyMsg), end: "30m", want: reports.Pass},
		{name: "no message",
			tl: failing().fellBack("6m", 1, " fallback-for-revision=2 fallback-reason=NotReady"), end: "30m",
			want: reports.Fail, message: []string{"the fallback manifest written on master-0 at +6m0s lacks " + annotationFallbackMessage}, evidence: []string{"6m"}},
		{name: "no annotations at all",
			tl: failing().fellBack("6m", 1, ""), end: "30m",
			want: reports.Fail, message: []string{"lacks " + annotationFallbackFor + ", " + annotationFallbackReason + ", " + annotationFallbackMessage}, evidence: []string{"6m"}},
		{name: "the wrong failed revision",
			tl: failing().fallback("6m", 1, 1, reasonNotReady, notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{`fallback-for-revision="1", want 2`}, evidence: []string{"6m"}},
		{name: "an unknown reason",
			tl: failing().fallback("6m", 2, 1, "Broken", notReadyMsg), end: "30m",
			want: reports.Fail, message: []string{`fallback-reason="Broken"`, "seed profile's reasons"}, evidence: []string{"6m"}},
		{name: "library-go knows no CrashLooping",
			tl: crashLoop(), cfg: libraryGo(), end: "30m",
			want: reports.Fail, message: []string{`fallback-reason="CrashLooping"`, "library-go profile's reasons"}, evidence: []string{"6m"}},
		{name: "the mirror pod without the message",
			tl: failing().fellBack("6m", 1, fallbackNote(2, reasonNotReady, notReadyMsg)).up("6m").
				mirror("6m10s", 1, true, "2", reasonNotReady, "something else"), end: "30m",
			want: reports.Fail, message: []string{"Pod/openshift-kube-apiserver/kube-apiserver-master-0 written at +6m10s", annotationFallbackMessage}, evidence: []string{"6m", "6m10s"}},
		{name: "the mirror pod without annotations",
			tl:  failing().fellBack("6m", 1, fallbackNote(2, reasonNotReady, notReadyMsg)).ready("6m", 1),
			end: "30m", want: reports.Fail, message: []string{annotationFallbackFor + `=""`}, evidence: []string{"6m"}},
		{name: "no fallback", tl: rollout(), end: "30m", want: reports.Skip},
	})
}

// 003 §Proposal step 2: linked once ready.
func TestSTATICPOD004LinkedWhenReady(t *testing.T) {
	runTable(t, "STATICPOD-004", []ruleCase{
		{name: "reference", tl: rollout(), end: "30m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "reference: after a retry", tl: stuckHook(), end: "30m", want: reports.Pass},
		{name: "linked before readiness",
			tl: failing().link("1m10s", 2).ready("1m30s", 2), end: "30m",
			want: reports.Fail, message: []string{"startup-monitor/master-0 linked last-known-good on master-0 at +1m10s to revision 2", "since its manifest was written at +1m0s"},
			evidence: []string{"1m10s"}},
		{name: "linked on a retry before readiness",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install("16m", 2).started("16m").link("16m10s", 2), end: "30m",
			want: reports.Fail, message: []string{"+16m10s", "since its manifest was written at +16m0s"}, evidence: []string{"16m10s"}},
		{name: "linked to a file",
			tl: failing().file("1m10s", RoleStartupMonitor, timeline.VerbSymlink, lastKnownGood, revisionDir(2)+"/kube-apiserver-pod.yaml"), end: "30m",
			want: reports.Fail, message: []string{"not a revision directory"}, evidence: []string{"1m10s"}},
		{name: "never linked", tl: newTimeline().install("0s", 1), end: "30m", want: reports.Skip},
	})
}

// 003 §Proposal step 1 and §Design Details: where a fallback goes.
func TestSTATICPOD005RightTarget(t *testing.T) {
	// third: revision 2 ready and linked, 3 fails at +10m.
	third := rollout().install("10m", 3).started("10m").hookStuck("10m").mirror("10m", 3, false)
	runTable(t, "STATICPOD-005", []ruleCase{
		{name: "reference: to last-known-good", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "no link: to the previous revision",
			tl: newTimeline().file("0s", RoleInstaller, timeline.VerbWrite, revisionDir(1)+"/kube-apiserver-pod.yaml", "1 byte").
				install("1m", 2).started("1m").hookStuck("1m").fallback("6m", 2, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Pass},
		{name: "a dangling link: to the previous revision",
			tl: third.prune("12m", 2).fallback("15m", 3, 1, reasonNotReady, notReadyMsg), end: "30m", want: reports.Pass},
		{name: "two revisions back is a warning",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				install("20m", 3).started("20m").hookStuck("20m").mirror("20m", 3, false).fallback("25m", 3, 1, reasonNotReady, notReadyMsg),
			end: "1h", want: reports.Pass,
			message: []string{"2 judged", "warning: master-0 fell back from revision 3 to 1 at +25m0s, 2 revisions back", "003 §Design Details"}},
		{name: "to the previous revision past last-known-good",
			tl:  rollout().install("10m", 3).started("10m").hookStuck("10m").fallback("15m", 3, 1, reasonNotReady, notReadyMsg),
			end: "30m", want: reports.Fail, message: []string{"master-0 fell back from revision 3 to 1 at +15m0s, want revision 2, the last-known-good one"},
			evidence: []string{"15m"}},
		{name: "bootstrap: nowhere to go",
			tl:  newTimeline().install("0s", 2).hookStuck("0s").fallback("5m", 2, 1, reasonNeverStartedUp, neverMsg),
			end: "30m", want: reports.Fail, message: []string{"nothing to fall back to", "bootstrap"}, evidence: []string{"5m"}},
		{name: "the failed revision unknown",
			tl: newTimeline().fellBack("5m", 1, ""), end: "30m", want: reports.Skip, message: []string{"names no revision it replaced"}},
		{name: "no fallback", tl: rollout(), end: "30m", want: reports.Skip},
	})
}

// 003 §Proposal step 2: once ready, the monitor links last-known-good to
// the revision, then removes its own manifest, at its first look that can
// see the readiness.
func TestSTATICPOD012DoneWhenReady(t *testing.T) {
	kill := func(b *builder, off string) *builder { return b.process(off, RoleStartupMonitor, timeline.VerbKill) }
	start := func(b *builder, off string) *builder { return b.process(off, RoleStartupMonitor, timeline.VerbStart) }
	// downAtReadiness: revision 2's monitor is killed at +1m10s, before its
	// operand is ready at +1m30s.
	downAtReadiness := func() *builder {
		b := kill(newTimeline().condition("0s", "False", "").running("0s", 1).
			install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false), "1m10s")
		return b.ready("1m30s", 2)
	}
	// lockedAtReadiness: the installer holds the lock from +1m20s to +1m40s,
	// over the readiness at +1m30s.
	lockedAtReadiness := func() *builder {
		return newTimeline().condition("0s", "False", "").running("0s", 1).
			install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
			lock("1m20s", RoleInstaller).ready("1m30s", 2).unlock("1m40s", RoleInstaller)
	}
	runTable(t, "STATICPOD-012", []ruleCase{
		{name: "reference: linked and gone at the readiness", tl: rollout(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: the retry's readiness", tl: stuckHook(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: bootstrap, ready after the timeout",
			tl: newTimeline().install("0s", 1).started("0s").hookStuck("0s").mirror("0s", 1, false).ready("8m30s", 1).done("8m30s", 1), end: "30m", want: reports.Pass},
		{name: "reference: library-go", tl: rollout(), cfg: libraryGo(), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "500ms late within a tolerance of 1s", tl: readied().done("1m30.5s", 2), end: "30m", cfg: tolerance("1s"), want: reports.Pass},
		{name: "faithful: linked and gone a minute after the readiness, within the default reaction bound", tl: readied().done("2m30s", 2), end: "30m", cfg: bound(), want: reports.Pass},
		{name: "later than the reaction bound",
			tl: readied().done("2m31s", 2), end: "30m", cfg: bound(),
			want: reports.Fail, message: []string{"but by +2m30s had done neither"}, evidence: []string{"1m", "1m30s", "2m31s"}},
		{name: "a second late",
			tl: readied().done("1m31s", 2), end: "30m",
			want: reports.Fail, message: []string{"kube-apiserver revision 2 on master-0 (manifest written at +1m0s) was ready (mirror pod Ready=True at revision 2 at +1m30s)",
				"startup-monitor/master-0 owed the link of last-known-good to 2 and then the removal of its own manifest at that instant",
				"but by +1m30s had done neither (it linked it at +1m31s and removed its manifest at +1m31s)"},
			evidence: []string{"1m", "1m30s", "1m31s"}},
		{name: "1.5s late with a tolerance of 1s",
			tl: readied().done("1m31.5s", 2), end: "30m", cfg: tolerance("1s"),
			want: reports.Fail, message: []string{"but by +1m31s had done neither"}, evidence: []string{"1m", "1m30s", "1m31.5s"}},
		{name: "never linked: gone at once",
			tl: readied().lock("1m30s", RoleStartupMonitor).gone("1m30s").unlock("1m30s", RoleStartupMonitor), end: "30m",
			want: reports.Fail, message: []string{"but removed its manifest at +1m30s without linking last-known-good to 2 first"}, evidence: []string{"1m", "1m30s"}},
		{name: "gone before linking",
			tl: readied().lock("1m30s", RoleStartupMonitor).gone("1m30s").link("1m30s", 2).unlock("1m30s", RoleStartupMonitor), end: "30m",
			want: reports.Fail, message: []string{"without linking last-known-good to 2 first (it linked it at +1m30s, after)"}, evidence: []string{"1m", "1m30s"}},
		{name: "linked to another revision",
			tl: readied().lock("1m30s", RoleStartupMonitor).link("1m30s", 1).gone("1m30s").unlock("1m30s", RoleStartupMonitor), end: "30m",
			want: reports.Fail, message: []string{"without linking last-known-good to 2 first"}, evidence: []string{"1m", "1m30s"}},
		{name: "linked before ready does not do",
			tl: failing().link("1m10s", 2).ready("1m30s", 2).gone("1m30s"), end: "30m",
			want: reports.Fail, message: []string{"without linking last-known-good to 2 first"}, evidence: []string{"1m", "1m30s"}},
		{name: "linked, manifest kept",
			tl: readied().link("1m30s", 2), end: "30m",
			want: reports.Fail, message: []string{"but, having linked it at +1m30s, did not remove its manifest by +1m30s, nor by the end of the run at +30m0s"},
			evidence: []string{"1m", "1m30s"}},
		{name: "linked, manifest kept past a later event",
			tl: readied().link("1m30s", 2).mirror("2m", 2, true), end: "30m",
			want: reports.Fail, message: []string{"but by +1m30s had only linked it (at +1m30s), not removed its manifest"},
			evidence: []string{"1m", "1m30s"}},
		{name: "neither",
			tl: readied(), end: "30m",
			want: reports.Fail, message: []string{"but did neither by +1m30s, nor by the end of the run at +30m0s"}, evidence: []string{"1m", "1m30s"}},
		{name: "neither before a later revision",
			tl: readied().install("5m", 3), end: "30m",
			want: reports.Fail, message: []string{"but by +1m30s had done neither"}, evidence: []string{"1m", "1m30s"}},
		{name: "the failure names the node",
			tl: rollout().on("master-1").running("0s", 1).install("1m", 2).started("1m").ready("2m", 2), end: "30m",
			want: reports.Fail, message: []string{"revision 2 on master-1", "startup-monitor/master-1 owed"}, evidence: []string{"1m", "2m"}},
		{name: "the run ends at the readiness",
			tl: readied(), end: "1m30s", want: reports.Skip, message: []string{"not judged", "step 2 was owed from +1m30s, not due before the end of the run at +1m30s"}},
		{name: "a later revision at the same instant",
			tl: readied().install("1m30s", 3), end: "30m",
			want: reports.Skip, message: []string{"step 2 was owed from +1m30s, but at +1m30s installer/master-0 held the installer lock"}},
		{name: "readiness lost at the same instant",
			tl: readied().mirror("1m30s", 2, false), end: "30m",
			want: reports.Skip, message: []string{"but at +1m30s the operand was no longer ready"}},
		// The installer's lock: the monitor waits for it (003 §Coordination).
		{name: "the installer held the lock at the readiness: due at its unlock",
			tl: lockedAtReadiness().done("1m40s", 2), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "late after the installer's unlock",
			tl: lockedAtReadiness().done("1m41s", 2), end: "30m",
			want: reports.Fail, message: []string{"once installer/master-0 released the installer lock at +1m40s, but by +1m40s had done neither"},
			evidence: []string{"1m", "1m30s", "1m40s", "1m41s"}},
		{name: "the lock never released",
			tl: newTimeline().running("0s", 1).install("1m", 2).started("1m").lock("1m20s", RoleInstaller).ready("1m30s", 2), end: "30m",
			want: reports.Skip, message: []string{"ready at +1m30s while installer/master-0 held the installer lock"}},
		// A monitor that was down owes it once back.
		{name: "down at the readiness, done at its restart",
			tl: start(downAtReadiness(), "3m").done("3m", 2), end: "30m", want: reports.Pass, message: []string{"1 judged"}},
		{name: "down at the readiness, a second late after its restart",
			tl: start(downAtReadiness(), "3m").done("3m1s", 2), end: "30m",
			want: reports.Fail, message: []string{"once started at +3m0s, but by +3m0s had done neither (it linked it at +3m1s and removed its manifest at +3m1s)"},
			evidence: []string{"1m", "1m30s", "3m", "3m1s"}},
		{name: "down at the readiness, nothing done once back",
			tl: start(downAtReadiness(), "3m"), end: "30m",
			want: reports.Fail, message: []string{"once started at +3m0s, but did neither by +3m0s, nor by the end of the run"}, evidence: []string{"1m", "1m30s", "3m"}},
		{name: "down to the end",
			tl: downAtReadiness(), end: "30m", want: reports.Skip, message: []string{"ready at +1m30s while the startup-monitor was down"}},
		{name: "back once the readiness was gone",
			tl: start(downAtReadiness().mirror("5m", 2, false), "6m"), end: "30m",
			want: reports.Skip, message: []string{"ready at +1m30s while the startup-monitor was down"}},
		{name: "killed at the readiness, before its look",
			tl: kill(readied(), "1m30s"), end: "30m",
			want: reports.Skip, message: []string{"but at +1m30s the startup-monitor was down"}},
		{name: "killed a second after the readiness, nothing done",
			tl: kill(readied(), "1m31s"), end: "30m",
			want: reports.Fail, message: []string{"but by +1m30s had done neither"}, evidence: []string{"1m", "1m30s"}},
		// Its manifest written again (an installer redoing an ask): a new
		// monitor of the revision, which owes it again.
		{name: "a new monitor of a ready revision does it again",
			tl: rollout().reinstall("10m", 2).done("10m", 2), end: "30m", want: reports.Pass, message: []string{"2 judged"}},
		{name: "a new monitor of a ready revision that does nothing",
			tl: rollout().reinstall("10m", 2), end: "30m",
			want: reports.Fail, message: []string{"once installer/master-0 released the installer lock at +10m0s, but did neither by +10m0s"},
			evidence: []string{"1m", "1m30s", "10m"}},
		{name: "a leftover monitor of another revision owes nothing",
			tl: newTimeline().running("0s", 1).file("0s", "scenario", timeline.VerbWrite, monitorManifest, "revision=3").ready("1m", 1), end: "30m",
			want: reports.Skip, message: []string{"no revision's operand was ready while its startup-monitor ran"}},
		{name: "a fallback's operand is not its monitor's",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "30m", want: reports.Skip},
	})
}

// STATICPOD-001 and 012 report the reactions they measured against the
// reaction bound.
func TestMonitorReactionsMeasured(t *testing.T) {
	for _, c := range []struct {
		id       string
		tl       *builder
		want     string
		failures bool
	}{
		{"STATICPOD-001", failing().fallback("6m30s", 2, 1, reasonNotReady, notReadyMsg), "30s", false},
		{"STATICPOD-001", failing().fallback("7m30s", 2, 1, reasonNotReady, notReadyMsg), "1m30s", true},
		{"STATICPOD-012", readied().done("1m50s", 2), "20s", false},
	} {
		v := verdictOf(t, c.id, ruleCase{tl: c.tl, end: "30m", cfg: bound()})
		if (v.Status == reports.Fail) != c.failures || len(v.Measures) != 1 || v.Measures[0].Max != d(c.want) || v.Measures[0].Budget != d("1m") {
			t.Errorf("%s: %s %s, measures %+v; want the reaction %s of 1m", c.id, v.Status, v.Message, v.Measures, c.want)
		}
	}
}
