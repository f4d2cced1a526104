package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 003 §Pruner: the linked revision and the link are kept.
func TestSTATICPOD009LastKnownGoodKept(t *testing.T) {
	runTable(t, "STATICPOD-009", []ruleCase{
		{name: "an older revision pruned", tl: rollout().prune("10m", 1), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "pruned after the link moved on", tl: stuckHook().prune("20m", 1), end: "1h", want: reports.Pass},
		{name: "the linked revision pruned",
			tl: rollout().prune("10m", 2), end: "1h",
			want: reports.Fail, message: []string{"pruner/master-0 removed /etc/kubernetes/static-pods/kube-apiserver-pod-2 on master-0 at +10m0s: the last-known-good revision, linked at +1m30s"},
			evidence: []string{"1m30s", "10m"}},
		{name: "a file of the linked revision removed",
			tl:  rollout().file("10m", RolePruner, timeline.VerbRemove, revisionDir(2)+"/kube-apiserver-pod.yaml", ""),
			end: "1h", want: reports.Fail, message: []string{"the last-known-good revision"}, evidence: []string{"1m30s", "10m"}},
		{name: "the link removed",
			tl: rollout().file("10m", RolePruner, timeline.VerbRemove, lastKnownGood, ""), end: "1h",
			want: reports.Fail, message: []string{"removed " + lastKnownGood, "the last-known-good link, to " + revisionDir(2)}, evidence: []string{"1m30s", "10m"}},
		{name: "the whole static-pods directory removed",
			tl: rollout().file("10m", RolePruner, timeline.VerbRemove, staticPodsDir, "directory"), end: "1h",
			want: reports.Fail, message: []string{"the last-known-good link"}, evidence: []string{"1m30s", "10m"}},
		{name: "nothing pruned", tl: rollout(), end: "1h", want: reports.Skip},
		{name: "pruned before any link",
			tl: newTimeline().install("0s", 1).prune("1m", 1), end: "1h", want: reports.Skip},
		{name: "library-go's pruner does not know last-known-good",
			tl: rollout().prune("10m", 2), cfg: libraryGo(), end: "1h", want: reports.Skip, message: []string{"not judged", "docs/upstream.md"}},
	})
}

// 003 §Coordination of Installer and Startup-Monitor: one writer at a time.
func TestSTATICPOD010LockHonoured(t *testing.T) {
	runTable(t, "STATICPOD-010", []ruleCase{
		{name: "reference", tl: stuckHook(), end: "1h", want: reports.Pass, message: []string{"4 judged"}},
		{name: "writes outside the manifests directory under another's lock",
			tl:  rollout().lock("5m", RoleStartupMonitor).prune("5m1s", 1).unlock("5m2s", RoleStartupMonitor),
			end: "1h", want: reports.Pass},
		{name: "the installer ignores the monitor's lock",
			tl: failing().lock("6m", RoleStartupMonitor).manifest("6m1s", RoleInstaller, 3, "").unlock("6m2s", RoleStartupMonitor), end: "1h",
			want: reports.Fail, message: []string{"installer/master-0 did write /etc/kubernetes/manifests/kube-apiserver-pod.yaml at +6m1s while startup-monitor/master-0 held the installer lock on master-0 (from +6m0s)"},
			evidence: []string{"6m", "6m1s"}},
		{name: "the monitor falls back under the installer's lock",
			tl:  failing().lock("6m", RoleInstaller).manifest("6m1s", RoleStartupMonitor, 1, fallbackNote(2, reasonNotReady, notReadyMsg)).unlock("6m2s", RoleInstaller),
			end: "1h", want: reports.Fail, message: []string{"startup-monitor/master-0 did write", "while installer/master-0 held"}, evidence: []string{"6m", "6m1s"}},
		{name: "the monitor removes its manifest under the installer's lock",
			tl:  failing().lock("6m", RoleInstaller).file("6m1s", RoleStartupMonitor, timeline.VerbRemove, monitorManifest, "").unlock("6m2s", RoleInstaller),
			end: "1h", want: reports.Fail, message: []string{"did remove " + monitorManifest}, evidence: []string{"6m", "6m1s"}},
		{name: "a rename into the manifests directory",
			tl:  failing().lock("6m", RoleInstaller).file("6m1s", "scenario", timeline.VerbRename, "/tmp/pod.yaml", operandManifest).unlock("6m2s", RoleInstaller),
			end: "1h", want: reports.Fail, message: []string{"did rename /tmp/pod.yaml"}, evidence: []string{"6m", "6m1s"}},
		{name: "the lock taken twice",
			tl: failing().lock("6m", RoleInstaller).lock("6m1s", RoleStartupMonitor).unlock("6m2s", RoleInstaller), end: "1h",
			want: reports.Fail, message: []string{"startup-monitor/master-0 took the installer lock at +6m1s while installer/master-0 held"}, evidence: []string{"6m", "6m1s"}},
		{name: "never locked",
			tl: newTimeline().manifest("0s", RoleInstaller, 1, ""), end: "1h", want: reports.Skip},
	})
}
