package rules

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 001 §What should an operator report, honored by components 1: "A
// component doesn't report the Available status condition the first time
// until they are completely rolled out".
func TestCO001AvailableAfterInstall(t *testing.T) {
	second := Config{Tolerance: time.Second}
	// early writes Available=True at off, once the first ready of the
	// installation's three pods are ready.
	early := func(off string, ready int) *story {
		s := newStory().co("0s", "etcd", "", c(condAvailable, statusFalse, "Component etcd has not yet deployed 4.0.0"), towards("4.0.0", "0 of 3")).
			spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).spec("0s", "etcd", kindDaemonSet, "etcd-agent", "4.0.0", 0).
			pod("0s", "etcd", "etcd-4.0.0-0", "etcd", "4.0.0", "master-0").
			pod("0s", "etcd", "etcd-agent-4.0.0-master-0", "etcd-agent", "4.0.0", "master-0").
			pod("0s", "etcd", "etcd-agent-4.0.0-master-1", "etcd-agent", "4.0.0", "master-1").
			desired("0s", "etcd", "etcd-agent", 2)
		for i, p := range []string{"etcd-4.0.0-0", "etcd-agent-4.0.0-master-0", "etcd-agent-4.0.0-master-1"} {
			if i == ready {
				s.co(off, "etcd", "", deployed("4.0.0"))
			}
			s.readiness("30s", "etcd", p, statusTrue)
		}
		return s
	}
	runTable(t, "CO-001", []ruleCase{
		{name: "the reference: Available with the installation's completion", tl: reference().builder, want: reports.Pass, message: []string{"1 judged"}},
		{name: "one write early: a DaemonSet on one node of two",
			tl:   early("30s", 2).builder,
			want: reports.Fail, message: []string{"ClusterOperator/etcd reported Available=True at +30s before its installation, the rollout to 4.0.0 begun at +0s, was complete: pod etcd-agent-4.0.0-master-1 is not ready"},
			evidence: []string{"30s", "0s"}},
		{name: "one second early",
			tl:   early("29s", 0).builder,
			want: reports.Fail, message: []string{"at +29s", "pod etcd-4.0.0-0 is not ready, pod etcd-agent-4.0.0-master-0 is not ready, pod etcd-agent-4.0.0-master-1 is not ready, Deployment etcd has 0 of 1 pods ready at 4.0.0, DaemonSet etcd-agent has 0 of 2 pods ready at 4.0.0"},
			evidence: []string{"29s", "0s", "0s", "0s"}},
		{name: "one write early, within a tolerance of 1s", tl: early("30s", 2).builder, cfg: &second, want: reports.Pass},
		{name: "Available before any operand spec",
			tl:   newStory().co("0s", "etcd", "", deployed("4.0.0")).spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).builder,
			want: reports.Fail, message: []string{"was complete: no operand spec asks it yet"}, evidence: []string{"0s"}},
		{name: "a ClusterOperator created before the timeline: not judged",
			tl: func() *builder {
				b := reference().builder
				b.events[1].Verb = timeline.VerbUpdateStatus
				return b
			}(),
			want: reports.Skip, message: []string{"not judged: ClusterOperator/etcd was created before the timeline began"}},
		{name: "a ClusterOperator a recording found when it began (its creation listed): not judged",
			tl: func() *builder {
				b := early("29s", 0).builder
				b.events[0].Actor, b.events[0].Role = timeline.ActorRecorder, ""
				return b
			}(),
			want: reports.Skip, message: []string{"not judged: ClusterOperator/etcd was created before the timeline began"}},
		{name: "never Available: not judged",
			tl:   newStory().co("0s", "etcd", "", c(condAvailable, statusFalse, "Component etcd has not yet deployed 4.0.0")).builder,
			want: reports.Skip, message: []string{"not judged: no operator reported Available=True"}},
		{name: "a DaemonSet on 2 of its 3 nodes: a reasonable percentage", tl: agents(2).builder, want: reports.Pass},
		{name: "a DaemonSet on 1 of its 3 nodes: not a majority",
			tl: agents(1).builder, want: reports.Fail, message: []string{"pod etcd-agent-4.0.0-master-1 is not ready"}, evidence: []string{"30s", "0s", "0s"}},
	})
}

// agents is the installation of a DaemonSet on three nodes, of which
// ready turn ready at 30s, the operator reporting Available and its
// version then (honored by components 1: "or within some reasonable
// percentage if the component must be installed to all nodes").
func agents(ready int) *story {
	s := newStory().co("0s", "etcd", "", c(condAvailable, statusFalse, "Component etcd has not yet deployed 4.0.0"), towards("4.0.0", "0 of 3")).
		spec("0s", "etcd", kindDaemonSet, "etcd-agent", "4.0.0", 0).desired("0s", "etcd", "etcd-agent", 3)
	for _, n := range []string{"master-0", "master-1", "master-2"} {
		s.pod("0s", "etcd", "etcd-agent-4.0.0-"+n, "etcd-agent", "4.0.0", n)
	}
	for _, n := range []string{"master-0", "master-1", "master-2"}[:ready] {
		s.readiness("30s", "etcd", "etcd-agent-4.0.0-"+n, statusTrue)
	}
	return s.co("30s", "etcd", "4.0.0", deployed("4.0.0"), c(condProgressing, statusTrue, "Rolling out 4.0.0 to the last nodes"))
}

// 001 §Version reporting during an upgrade: "if the amount of time it
// takes to do the upgrade is significant (more than a second or two) the
// operator should report Progressing=true"; honored by components 3: "it
// should include the version in the message".
func TestCO004ProgressingDuringRollout(t *testing.T) {
	upgrade := func(off string, says cond) *story {
		return rollingOut(installed(), false).co(off, "etcd", "", says).lastPodReady("11m").co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1"))
	}
	exact := Config{} // no reaction bound: the seed's 2s alone
	second := Config{Reaction: DefaultReaction, Tolerance: time.Second}
	runTable(t, "CO-004", []ruleCase{
		{name: "the reference: Working towards the version as the rollout begins", tl: reference().builder, cfg: &exact, want: reports.Pass, message: []string{"2 judged"}},
		{name: "2s after the rollout began", tl: upgrade("10m2s", towards("4.0.1", "0 of 3")).builder, cfg: &exact, want: reports.Pass},
		{name: "3s after the rollout began, with no reaction bound",
			tl: upgrade("10m3s", towards("4.0.1", "0 of 3")).builder, cfg: &exact,
			want: reports.Fail, message: []string{`ClusterOperator/etcd: the rollout to 4.0.1 begun at +10m0s was not reported Progressing=True naming 4.0.1 by +10m2s: Progressing False "Component etcd is at version 4.0.0"`},
			evidence: []string{"10m", "30s"}},
		{name: "20s after the rollout began: a requeue within the default bound",
			tl: upgrade("10m20s", towards("4.0.1", "0 of 3")).builder, want: reports.Pass, message: []string{"1 judged"}},
		{name: "33s after the rollout began: beyond 2s and the default bound",
			tl:   upgrade("10m33s", towards("4.0.1", "0 of 3")).builder,
			want: reports.Fail, message: []string{"was not reported Progressing=True naming 4.0.1 by +10m32s"}, evidence: []string{"10m", "30s"}},
		{name: "Progressing without the version",
			tl: upgrade("10m", c(condProgressing, statusTrue, "Rolling out new pods")).builder, cfg: &exact,
			want: reports.Fail, message: []string{`by +10m2s: Progressing True "Rolling out new pods"`}, evidence: []string{"10m", "10m"}},
		{name: "the version dropped from the message after the first write",
			tl: rollingOut(installed(), false).co("10m", "etcd", "", towards("4.0.1", "0 of 3")).
				co("10m30s", "etcd", "", c(condProgressing, statusTrue, "2 of 3 pods updated")).lastPodReady("11m").
				co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{`at +10m30s, with the rollout still under way, Progressing True "2 of 3 pods updated" no longer names 4.0.1`},
			evidence: []string{"10m30s"}},
		{name: "Progressing False half a second before the rollout is over, in real time: within the tolerance",
			tl: rollingOut(installed(), true).co("10m59.5s", "etcd", "", atVersion("4.0.0")).lastPodReady("11m").
				co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder, cfg: &second,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "Progressing False before the rollout is over",
			tl: rollingOut(installed(), true).co("10m40s", "etcd", "", atVersion("4.0.0")).lastPodReady("11m").
				co("11m", "etcd", "4.0.1", deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Fail, message: []string{`at +10m40s, with the rollout still under way, Progressing False`}, evidence: []string{"10m40s"}},
		{name: "a rollout over within 2s owes nothing",
			tl: installed().spec("10m", "etcd", kindDeployment, "etcd", "4.0.0", 3).builder, cfg: &exact, want: reports.Pass, message: []string{"1 judged"}},
		{name: "a rollout given up for another: each judged while it ran",
			tl: rollingOut(installed(), true).spec("10m40s", "etcd", kindDeployment, "etcd", "4.0.2", 1).
				co("10m40s", "etcd", "", towards("4.0.2", "0 of 3")).builder, cfg: &exact,
			want: reports.Pass, message: []string{"3 judged"}},
		{name: "the run ends before it is due: not judged",
			tl: installed().spec("59m59s", "etcd", kindDeployment, "etcd", "4.0.1", 1).builder, cfg: &exact,
			want: reports.Pass, message: []string{"1 judged; 1 not judged (ClusterOperator/etcd: the rollout to 4.0.1 begun at +59m59s: the run ended before Progressing was due)"}},
		{name: "the operator down as the rollout begins: not judged",
			tl: rollingOut(installed().proc("9m", "operator/etcd", timeline.VerbKill), false).
				proc("12m", "operator/etcd", timeline.VerbStart).co("12m", "etcd", "", towards("4.0.1", "3 of 3")).builder, cfg: &exact,
			want: reports.Pass, message: []string{"1 not judged (ClusterOperator/etcd: the rollout to 4.0.1 begun at +10m0s: its operator was down"}},
	})
	// The reaction is measured: the reference names the version at once, a
	// requeueing operator 20s later.
	for _, tc := range []struct {
		off  string
		took time.Duration
	}{{"10m", 0}, {"10m20s", 20 * time.Second}} {
		v := verdictOf(t, "CO-004", ruleCase{tl: upgrade(tc.off, towards("4.0.1", "0 of 3")).builder})
		if len(v.Measures) != 1 || v.Measures[0].Max != tc.took || v.Measures[0].Count != 1 || v.Measures[0].Budget != 32*time.Second {
			t.Errorf("Progressing at %s: measures %+v, want one reaction of %s against 32s", tc.off, v.Measures, tc.took)
		}
	}
}

// 001 §What should an operator report, honored by components 3: "It should
// not report progressing when it is reconciling a previously known state."
func TestCO005NoProgressAtRest(t *testing.T) {
	runTable(t, "CO-005", []ruleCase{
		{name: "the reference: Progressing with each rollout", tl: reference().builder, want: reports.Pass, message: []string{"2 judged"}},
		{name: "restarted at the same version, Progressing again",
			tl: reference().proc("20m", "operator/etcd", timeline.VerbKill).proc("20m", "operator/etcd", timeline.VerbStart).
				co("20m", "etcd", "", towards("4.0.1", "3 of 3")).builder,
			want: reports.Fail, message: []string{`ClusterOperator/etcd turned Progressing True at +20m0s ("Working towards 4.0.1: 3 of 3 pods updated") with no rollout under way and no operand spec written since Progressing was at rest at +11m0s`},
			evidence: []string{"20m"}},
		{name: "a recording with no operands: an upgrade's Progressing is not judged",
			tl: newTimeline().write("0s", "etcd", c(condProgressing, statusFalse, "Cluster version is 4.0.0")).
				write("5m", "etcd", c(condProgressing, statusTrue, "Working towards 4.0.1").at("5m")),
			want: reports.Skip, message: []string{"no operand of namespace etcd on the timeline"}},
		{name: "a pod of the version reached turning unready",
			tl:   reference().readiness("30m", "etcd", "etcd-4.0.1-0", statusFalse).co("30m", "etcd", "", towards("4.0.1", "2 of 3")).builder,
			want: reports.Fail, message: []string{"at +30m0s"}, evidence: []string{"30m"}},
		{name: "a spec written anew (a configuration the timeline does not record)",
			tl:   reference().spec("30m", "etcd", kindDeployment, "etcd", "4.0.1", 1).co("30m", "etcd", "", towards("4.0.1", "2 of 3")).builder,
			want: reports.Pass},
		{name: "a spec written a while before, a status between",
			tl: reference().spec("29m", "etcd", kindDeployment, "etcd", "4.0.1", 1).co("29m30s", "etcd", "", c(condUpgradeable, statusTrue, "Ready")).
				co("30m", "etcd", "", towards("4.0.1", "2 of 3")).builder,
			want: reports.Pass},
		{name: "an apply that failed",
			tl: reference().failedSpec("30m", "etcd", "etcd").
				co("30m", "etcd", "", c(condProgressing, statusTrue, "Unable to apply 4.0.1: an operand could not be updated")).builder,
			want: reports.Pass},
		{name: "never Progressing True: not judged", tl: newStory().co("0s", "etcd", "", atVersion("4.0.0")).builder,
			want: reports.Skip, message: []string{"not judged: no operator turned Progressing True"}},
	})
}

// honored by components 2: "A component reports Failing when it can't
// accomplish its task"; 001 §Conditions.
func TestCO008FailingWhenStuck(t *testing.T) {
	late := Config{Stuck: 2 * time.Hour}
	exact := Config{}
	stuck := c(condDegraded, statusTrue, "DaemonSet etcd-agent has made no progress towards 4.0.1 in 10m0s, with 1 of 2 nodes updated and ready; master-1: not ready.")
	blocked := c(condProgressing, statusTrue, "Unable to apply 4.0.1: daemonset etcd-agent is not progressing")
	runTable(t, "CO-008", []ruleCase{
		{name: "the reference: Degraded at the deadline", tl: upgrading().co("20m30s", "etcd", "", stuck, blocked).builder,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "the older name, Failing", tl: upgrading().co("20m30s", "etcd", "", stuck.named(condFailing), blocked).builder,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "one second late, with no reaction bound",
			tl: upgrading().co("20m31s", "etcd", "", stuck, blocked).builder, cfg: &exact,
			want: reports.Fail, message: []string{"ClusterOperator/etcd: the rollout to 4.0.1 made no progress from +10m30s: neither Failing nor Degraded was True by +20m30s (10m0s and the reaction bound later)"},
			evidence: []string{"10m30s", "10m30s"}},
		{name: "20s late: a resync within the default bound",
			tl: upgrading().co("20m50s", "etcd", "", stuck, blocked).builder, want: reports.Pass},
		{name: "1m late: beyond the default bound",
			tl:   upgrading().co("21m30s", "etcd", "", stuck, blocked).builder,
			want: reports.Fail, message: []string{"neither Failing nor Degraded was True by +21m0s"}, evidence: []string{"10m30s", "10m30s"}},
		{name: "dropped while still stuck",
			tl:   upgrading().co("20m30s", "etcd", "", stuck, blocked).co("25m", "etcd", "", c(condDegraded, statusFalse, "")).builder,
			want: reports.Fail, message: []string{"Failing and Degraded were left not True at +25m0s with still no progress"}, evidence: []string{"25m"}},
		{name: "cleared as the rollout moves again",
			tl: upgrading().co("20m30s", "etcd", "", stuck, blocked).lastPodReady("30m").
				co("30m", "etcd", "4.0.1", c(condDegraded, statusFalse, ""), deployed("4.0.1"), atVersion("4.0.1")).builder,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "the run ends before it is due: not judged", tl: upgrading().builder, cfg: &late,
			want: reports.Skip, message: []string{"not judged: ClusterOperator/etcd: the rollout to 4.0.1 made no progress from +10m30s: the run ended before"}},
		{name: "the operator down: not judged",
			tl:   upgrading().proc("12m", "operator/etcd", timeline.VerbKill).proc("25m", "operator/etcd", timeline.VerbStart).co("25m", "etcd", "", stuck, blocked).builder,
			want: reports.Skip, message: []string{"its operator was down before Failing or Degraded was due"}},
		{name: "its view perturbed just after the last progress: the stall counted from when it could see it",
			tl:   upgrading().fault("10m40s", "11m40s", "operator/etcd", conflicts).co("22m45s", "etcd", "", stuck, blocked).builder,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "its view perturbed just after the last progress, and late all the same",
			tl:   upgrading().fault("10m40s", "11m40s", "operator/etcd", conflicts).co("23m20s", "etcd", "", stuck, blocked).builder,
			want: reports.Fail, message: []string{"neither Failing nor Degraded was True by +23m10s"}, evidence: []string{"10m30s", "10m30s"}},
		{name: "its writes perturbed over the deadline: owed after its retry",
			tl:   upgrading().fault("20m40s", "21m40s", "operator/etcd", conflicts).co("23m", "etcd", "", stuck, blocked).builder,
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "no stall: not judged", tl: reference().builder, want: reports.Skip, message: []string{"no rollout made no progress for 10m0s"}},
	})
	v := verdictOf(t, "CO-008", ruleCase{tl: upgrading().co("20m50s", "etcd", "", stuck, blocked).builder})
	if len(v.Measures) != 1 || v.Measures[0].Max != 20*time.Second || v.Measures[0].Budget != DefaultReaction {
		t.Errorf("measures %+v, want the worst reaction 20s after the stall's 10m, against %s", v.Measures, DefaultReaction)
	}
}

// honored by components 4: "A component reports Upgradeable as false when
// it wishes to prevent an upgrade for an admin-correctable condition. The
// component should include a message that describes what must be fixed."
func TestCO009UpgradeableBlocked(t *testing.T) {
	const fix = "nodes must be updated to 4.0 before the control plane."
	blocked := c(condUpgradeable, statusFalse, "Nodes must be updated to 4.0 before the control plane.").because("AdminActionRequired")
	free := c(condUpgradeable, statusTrue, "")
	second := Config{Tolerance: time.Second}
	exact := Config{}
	runTable(t, "CO-009", []ruleCase{
		{name: "the reference: False with the text, then True",
			tl:   reference().blocker("20m", "etcd", fix).co("20m", "etcd", "", blocked).blocker("30m", "etcd", "").co("30m", "etcd", "", free).builder,
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "one second late, with no reaction bound",
			tl: reference().blocker("20m", "etcd", fix).co("20m1s", "etcd", "", blocked).builder, cfg: &exact,
			want: reports.Fail, message: []string{`ClusterOperator/etcd: the blocker "nodes must be updated to 4.0 before the control plane." written at +20m0s: at +20m0s Upgradeable was True, not False`},
			evidence: []string{"20m", "11m"}},
		{name: "one second late, within a tolerance of 1s",
			tl: reference().blocker("20m", "etcd", fix).co("20m1s", "etcd", "", blocked).builder, cfg: &second, want: reports.Pass},
		{name: "25s late: within the default bound",
			tl: reference().blocker("20m", "etcd", fix).co("20m25s", "etcd", "", blocked).builder, want: reports.Pass},
		{name: "31s late: beyond the default bound",
			tl:   reference().blocker("20m", "etcd", fix).co("20m31s", "etcd", "", blocked).builder,
			want: reports.Fail, message: []string{"at +20m30s Upgradeable was True, not False"}, evidence: []string{"20m", "11m"}},
		{name: "False with a message of its own words: what it says is CO-025's",
			tl:   reference().blocker("20m", "etcd", fix).co("20m", "etcd", "", c(condUpgradeable, statusFalse, "The administrator must act before an upgrade")).builder,
			want: reports.Pass},
		{name: "still False once cleared",
			tl: reference().blocker("20m", "etcd", fix).co("20m", "etcd", "", blocked).blocker("30m", "etcd", "").builder, cfg: &exact,
			want: reports.Fail, message: []string{"the blocker cleared at +30m0s: at +30m0s Upgradeable was still False"}, evidence: []string{"30m", "20m"}},
		{name: "True again while the blocker stands",
			tl:   reference().blocker("20m", "etcd", fix).co("20m", "etcd", "", blocked).co("25m", "etcd", "", free).builder,
			want: reports.Fail, message: []string{"at +25m0s Upgradeable was True, not False"}, evidence: []string{"25m"}},
		{name: "the operator down: not judged",
			tl:   reference().proc("19m", "operator/etcd", timeline.VerbKill).blocker("20m", "etcd", fix).builder,
			want: reports.Skip, message: []string{"its operator was down before Upgradeable was due"}},
		{name: "an empty blocker blocks nothing: not judged", tl: reference().blocker("20m", "etcd", "").builder,
			want: reports.Skip, message: []string{"no administrator's blocker"}},
		// An operator that never wrote (a process that did nothing) fails
		// the blocker, and is not blocked once it clears; the rule judges
		// that without a write to measure a reaction to.
		{name: "an operator that never wrote", tl: newStory().blocker("20m", "etcd", fix).blocker("30m", "etcd", "").builder, cfg: &exact,
			want: reports.Fail, message: []string{"Upgradeable was not reported: it must be False"}, evidence: []string{"20m"}},
	})
	v := verdictOf(t, "CO-009", ruleCase{tl: reference().blocker("20m", "etcd", fix).co("20m25s", "etcd", "", blocked).
		blocker("30m", "etcd", "").co("30m", "etcd", "", free).builder})
	if len(v.Measures) != 1 || v.Measures[0].Count != 2 || v.Measures[0].Max != 25*time.Second {
		t.Errorf("measures %+v, want 2 reactions, the worst 25s", v.Measures)
	}
}
