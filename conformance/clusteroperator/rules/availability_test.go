package rules

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 001 §Conditions: "`Available` must be true if the operand is functional and
// available in the cluster at the level in status. If this is false, it means
// there is an outage"; decision 001, conformance/clusteroperator/README.md:
// judged for the whole run.
func TestCO010AvailableWhileServing(t *testing.T) {
	exact := Config{}
	down := c(condAvailable, statusFalse, "DaemonSet etcd-agent has no ready pod on master-0").because("OperandUnavailable")
	// lateUp is the reference's story with Available False while a node
	// has no ready pod, and True again off after the upgrade completed.
	lateUp := func(off string) *story {
		return rollingOut(installed(), true).co("10m", "etcd", "", down).lastPodReady("11m").
			co("11m", "etcd", "4.0.1", atVersion("4.0.1")).co(off, "etcd", "", deployed("4.0.1"))
	}
	runTable(t, "CO-010", []ruleCase{
		{name: "the reference: Available whenever the operands serve", tl: reference().builder, cfg: &exact, want: reports.Pass, message: []string{"2 judged"}},
		{name: "False while a node has no ready pod, True again 20s after: within the default bound",
			tl: lateUp("11m20s").builder, want: reports.Pass, message: []string{"2 judged"}},
		{name: "True again 20s after, with no reaction bound",
			tl: lateUp("11m20s").builder, cfg: &exact,
			want: reports.Fail, message: []string{`ClusterOperator/etcd: its operands served at full strength from +11m0s: at +11m0s it reported Available False "DaemonSet etcd-agent has no ready pod on master-0": that is an outage, and there was none`},
			evidence: []string{"11m", "11m"}},
		{name: "True again 1m after: beyond the default bound",
			tl: lateUp("12m").builder, want: reports.Fail, message: []string{"at +11m30s it reported Available False"}, evidence: []string{"11m", "11m"}},
		{name: "False with every operand at full strength",
			tl:   reference().co("20m", "etcd", "", c(condAvailable, statusFalse, "Component etcd is down")).builder,
			want: reports.Fail, message: []string{`at +20m0s it reported Available False "Component etcd is down" while they still served`}, evidence: []string{"20m"}},
		{name: "Unknown with every operand at full strength",
			tl:   reference().co("20m", "etcd", "", c(condAvailable, statusUnknown, "Component etcd cannot tell")).builder,
			want: reports.Fail, message: []string{`Available Unknown`}, evidence: []string{"20m"}},
		{name: "False once a pod is lost: an outage may be called",
			tl:   reference().readiness("20m", "etcd", "etcd-4.0.1-0", statusFalse).co("20m", "etcd", "", c(condAvailable, statusFalse, "Deployment etcd has no ready pod")).builder,
			want: reports.Pass},
		{name: "never installed: not judged",
			tl:   newStory().co("0s", "etcd", "", towards("4.0.0", "0 of 1")).spec("0s", "etcd", kindDeployment, "etcd", "4.0.0", 1).builder,
			want: reports.Skip, message: []string{"not judged: no installed component"}},
		{name: "the operator down when the operands came back: not judged",
			tl:   lateUp("13m").proc("10m50s", "operator/etcd", timeline.VerbKill).proc("13m", "operator/etcd", timeline.VerbStart).builder,
			want: reports.Pass, message: []string{"1 not judged (ClusterOperator/etcd: its operands served at full strength from +11m0s: its operator was down"}},
	})
	v := verdictOf(t, "CO-010", ruleCase{tl: lateUp("11m20s").builder})
	if len(v.Measures) != 1 || v.Measures[0].Max != 20*time.Second || v.Measures[0].Budget != DefaultReaction {
		t.Errorf("measures %+v, want the worst reaction 20s against %s", v.Measures, DefaultReaction)
	}
}
