package rules

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 001 §Version reporting during an upgrade: "As soon as you can guarantee
// you are not and will not run any old versions of your operands, you
// can update the operator version"; honored by components 5.
func TestCO002VersionAfterRollout(t *testing.T) {
	second := Config{Tolerance: time.Second}
	runTable(t, "CO-002", []ruleCase{
		{name: "the reference: versions at each completion", tl: reference().builder, want: reports.Pass, message: []string{"2 judged"}},
		{name: "versions moved with the specs, old pods still running",
			tl:   installed().spec("10m", "etcd", kindDeployment, "etcd", "4.0.1", 1).co("10m", "etcd", "4.0.1").builder,
			want: reports.Fail, message: []string{"ClusterOperator/etcd changed versions[operator] from 4.0.0 to 4.0.1 at +10m0s while pod etcd-4.0.0-0 runs 4.0.0",
				"pod etcd-agent-4.0.0-master-0 runs 4.0.0", "DaemonSet etcd-agent asks 4.0.0: not rolled out"},
			evidence: []string{"10m", "30s", "30s", "30s", "0s"}},
		{name: "one write early: the last old pod is still there",
			tl: installed().spec("10m", "etcd", kindDeployment, "etcd", "4.0.1", 1).spec("10m", "etcd", kindDaemonSet, "etcd-agent", "4.0.1", 0).
				pod("10m", "etcd", "etcd-4.0.1-0", "etcd", "4.0.1", "master-1").gone("10m", "etcd", "etcd-agent-4.0.0-master-0").
				gone("10m30s", "etcd", "etcd-4.0.0-0").co("10m30s", "etcd", "4.0.1").gone("10m30s", "etcd", "etcd-agent-4.0.0-master-1").builder,
			want: reports.Fail, message: []string{"while pod etcd-agent-4.0.0-master-1 runs 4.0.0"}, evidence: []string{"10m30s", "30s"}},
		{name: "the old pods gone, the new not yet ready: an upgrade may report",
			tl: upgrading().co("10m30s", "etcd", "4.0.1", atVersion("4.0.1")).builder, want: reports.Pass},
		{name: "the installation reported before its pods are ready",
			tl: newStory().co("0s", "etcd", "", towards("4.0.0", "0 of 1")).spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).
				pod("0s", "etcd", "etcd-4.0.0-0", "etcd", "4.0.0", "master-0").co("10s", "etcd", "4.0.0").builder,
			want: reports.Fail, message: []string{"reported versions[operator] 4.0.0 at installation at +10s while pod etcd-4.0.0-0 is not ready"},
			evidence: []string{"10s", "0s"}},
		{name: "an old pod deleted within the tolerance after the write",
			tl:  upgrading().co("10m30s", "etcd", "4.0.1").gone("10m30.5s", "etcd", "etcd-agent-4.0.0-master-1").builder,
			cfg: &second, want: reports.Pass},
		{name: "an installation reported on 2 of a DaemonSet's 3 nodes: a reasonable percentage", tl: agents(2).builder, want: reports.Pass},
		{name: "an installation reported on 1 of a DaemonSet's 3 nodes",
			tl: agents(1).builder, want: reports.Fail, message: []string{"reported versions[operator] 4.0.0 at installation at +30s while pod etcd-agent-4.0.0-master-1 is not ready"},
			evidence: []string{"30s", "0s", "0s"}},
		{name: "a ClusterOperator without operands: not judged",
			tl:   newStory().co("0s", "etcd", "4.0.0", c(condAvailable, statusTrue, "Cluster has deployed 4.0.0")).builder,
			want: reports.Skip, message: []string{"not judged: ClusterOperator/etcd: no operand of namespace etcd"}},
	})
}

// 001 §Version reporting during an upgrade; honored by components 5: "A
// component reports when it has rolled out the new version of its
// operands".
func TestCO003VersionReported(t *testing.T) {
	late := Config{Reaction: 2 * time.Hour}
	second := Config{Tolerance: time.Second}
	exact := Config{}
	runTable(t, "CO-003", []ruleCase{
		{name: "the reference reports at the instant of completion", tl: reference().builder, cfg: &exact, want: reports.Pass, message: []string{"2 judged"}},
		{name: "one second late, with no reaction bound",
			tl: upgrading().lastPodReady("11m").co("11m1s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder, cfg: &exact,
			want: reports.Fail, message: []string{"ClusterOperator/etcd: the rollout to 4.0.1 complete at +11m0s: versions[operator] read 4.0.0 at +11m0s (0s after), not 4.0.1"},
			evidence: []string{"11m", "10m30s"}},
		{name: "one second late, within a tolerance of 1s",
			tl:  upgrading().lastPodReady("11m").co("11m1s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			cfg: &second, want: reports.Pass},
		{name: "20s late: a requeue within the default bound",
			tl:   upgrading().lastPodReady("11m").co("11m20s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "at a resync a minute later: beyond the default bound",
			tl:   upgrading().lastPodReady("11m").co("12m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{"versions[operator] read 4.0.0 at +11m30s (30s after), not 4.0.1"}, evidence: []string{"11m", "10m30s"}},
		{name: "never reported",
			tl:   upgrading().lastPodReady("11m").builder,
			want: reports.Fail, message: []string{"versions[operator] read 4.0.0 at +11m30s (30s after), not 4.0.1"}, evidence: []string{"11m", "10m30s"}},
		{name: "moved back with no new rollout",
			tl:   reference().co("20m", "etcd", "4.0.0").builder,
			want: reports.Fail, message: []string{"versions[operator] went from 4.0.1 to 4.0.0 at +20m0s with no new rollout begun"}, evidence: []string{"20m"}},
		{name: "the run ends before it is due: not judged",
			tl: installed().builder, cfg: &late, want: reports.Skip, message: []string{"the run ended before versions[operator] was due"}},
		{name: "the operator down at the completion: not judged",
			tl: upgrading().proc("10m45s", "operator/etcd", timeline.VerbKill).lastPodReady("11m").
				proc("12m", "operator/etcd", timeline.VerbStart).co("12m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1").at("12m")).builder,
			want: reports.Pass, message: []string{"1 judged", "1 not judged (ClusterOperator/etcd: the rollout to 4.0.1 complete at +11m0s: its operator was down"}},
		{name: "its writes perturbed over the deadline: owed the bound after its retry",
			tl: upgrading().fault("10m50s", "11m50s", "operator/etcd", conflicts).lastPodReady("11m").
				co("12m10s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "its writes perturbed over the deadline, and still late after its retry",
			tl: upgrading().fault("10m50s", "11m50s", "operator/etcd", conflicts).lastPodReady("11m").
				co("13m30s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{"versions[operator] read 4.0.0 at +13m20s (2m20s after), not 4.0.1"},
			evidence: []string{"11m", "10m30s"}},
		{name: "the scenario's own API fault is no perturbation: owed as ever",
			tl: upgrading().fault("10m50s", "11m50s", "operator/etcd", "writes fail with 409 Conflict").lastPodReady("11m").
				co("12m10s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{"versions[operator] read 4.0.0 at +11m30s (30s after), not 4.0.1"},
			evidence: []string{"11m", "10m30s"}},
		{name: "perturbed to the end: not judged",
			tl:   upgrading().fault("10m50s", "", "operator/etcd", conflicts).lastPodReady("11m").co("20m", "etcd", "").builder,
			want: reports.Pass, message: []string{"1 judged", "1 not judged (ClusterOperator/etcd: the rollout to 4.0.1 complete at +11m0s: the run ended before versions[operator] was due"}},
	})
	// Each reaction is measured from completion to the write of the version.
	v := verdictOf(t, "CO-003", ruleCase{tl: upgrading().lastPodReady("11m").co("11m20s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder})
	if len(v.Measures) != 1 || v.Measures[0].Count != 2 || v.Measures[0].Max != 20*time.Second || v.Measures[0].Budget != DefaultReaction {
		t.Errorf("measures %+v, want 2 reactions, the worst 20s, against %s", v.Measures, DefaultReaction)
	}
}

// 001 §Status: "all the fields in the .status are only valid together and
// do not partially represent the status of the operator".
// conflicts is a perturbation window's Detail: the role's writes refused.
const conflicts = timeline.PerturbationDetail + "writes fail with 409 Conflict"

func TestCO006AtomicCompletion(t *testing.T) {
	runTable(t, "CO-006", []ruleCase{
		{name: "the reference: one write at completion", tl: reference().builder, want: reports.Pass, message: []string{"2 judged"}},
		{name: "the status split in two updates, conditions first",
			tl:   upgrading().lastPodReady("11m").co("11m", "etcd", "", deployed("4.0.1"), atVersion("4.0.1")).co("11m", "etcd", "4.0.1").builder,
			want: reports.Fail, message: []string{"ClusterOperator/etcd: the rollout to 4.0.1 complete at +11m0s: the write that brought Progressing to rest at +11m0s carries versions[operator] 4.0.0, not 4.0.1: the status is split"},
			evidence: []string{"11m"}},
		{name: "at rest naming the new version before the versions",
			tl:   upgrading().co("10m45s", "etcd", "", atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{`ClusterOperator/etcd at +10m45s: Progressing at rest says "Component etcd is at version 4.0.1" while versions[operator] is 4.0.0`},
			evidence: []string{"10m45s"}},
		{name: "Progressing kept True after the upgrade: not judged",
			tl:   upgrading().lastPodReady("11m").co("11m", "etcd", "4.0.1", deployed("4.0.1")).builder,
			want: reports.Pass, message: []string{"1 judged", "1 not judged (ClusterOperator/etcd: the rollout to 4.0.1 complete at +11m0s: Progressing did not come to rest after it)"}},
	})
}

// 001 §Version reporting during an upgrade: "if it either never set
// Progressing=true or sets Progressing=false at upgrade complete it MUST
// set lastTransitionTime on Progressing to the current time".
func TestCO007StampAtCompletion(t *testing.T) {
	second := Config{Tolerance: time.Second}
	quiet := func() *story { return rollingOut(installed(), false).lastPodReady("11m") }
	runTable(t, "CO-007", []ruleCase{
		{name: "the reference: Progressing False stamped at each completion", tl: reference().builder, want: reports.Pass, message: []string{"2 judged"}},
		{name: "never Progressing, stamped at completion",
			tl: quiet().co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1").at("11m")).builder, want: reports.Pass},
		{name: "never Progressing, not stamped",
			tl:   quiet().co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{"ClusterOperator/etcd moved versions[operator] to 4.0.1 at +11m0s with Progressing False last transitioned at +30s: it must be set to the current time"},
			evidence: []string{"11m"}},
		{name: "stamped with the second the API server keeps, within a tolerance of 1s",
			tl:  quiet().co("11m1.5s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1").at("11m")).builder,
			cfg: &second, want: reports.Pass},
		{name: "stamped 1.5s before the write, exact",
			tl:   quiet().co("11m1.5s", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1").at("11m")).builder,
			want: reports.Fail, message: []string{"last transitioned at +11m0s"}, evidence: []string{"11m1.5s"}},
		{name: "Progressing still True at completion owes no stamp",
			tl: upgrading().lastPodReady("11m").co("11m", "etcd", "4.0.1", deployed("4.0.1")).builder, want: reports.Pass},
		{name: "no Progressing at all",
			tl:   newStory().co("0s", "etcd", "4.0.0", c(condAvailable, statusTrue, "Cluster has deployed 4.0.0")).builder,
			want: reports.Fail, message: []string{"with no Progressing condition"}, evidence: []string{"0s"}},
		{name: "no version moved: not judged", tl: newStory().co("0s", "etcd", "", atVersion("4.0.0")).builder,
			want: reports.Skip, message: []string{"not judged: no operator moved versions[operator]"}},
	})
}

// mentions: a version as a word, "v" allowed before it.
func TestMentions(t *testing.T) {
	for _, tc := range []struct {
		msg, v string
		want   bool
	}{
		{"Working towards 4.0.1: 1 of 3 pods updated", "4.0.1", true},
		{"Moving to v1.0.1", "1.0.1", true},
		{"Component etcd is at version 4.0.1.", "4.0.1", true},
		{"Working towards 4.0.10", "4.0.1", false},
		{"Working towards 14.0.1", "4.0.1", false},
		{"Working towards 4.0.1-rc.1", "4.0.1", false},
		{"Working towards 4.0.0, then 4.0.1", "4.0.1", true},
		{"Working towards the new version", "4.0.1", false},
		{"Anything", "", false},
	} {
		if got := mentions(tc.msg, tc.v); got != tc.want {
			t.Errorf("mentions(%q, %q) = %v, want %v", tc.msg, tc.v, got, tc.want)
		}
	}
}
