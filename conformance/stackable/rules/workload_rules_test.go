package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestLeftAlone(t *testing.T) {
	rs := &Config{Profile: ProfileOperatorRS}
	pausedSpec := specOf{Roles: roles().Roles, ClusterOperation: clusterOperation{ReconciliationPaused: true}}
	runTable(t, "STACKABLE-005", []ruleCase{
		{name: "paused, then a spec change", tl: paused(), want: reports.Pass, message: []string{"1 judged"}},
		{name: "writes while paused",
			tl:   paused().workload("4m", RoleOperator, server, 3),
			want: reports.Fail, message: []string{"the operator's update of StatefulSet/data/c1-server while paused at +4m0s (since +3m0s)"}, evidence: []string{"4m"}},
		{name: "a workload created while paused",
			tl:   paused().workload("5m", RoleOperator, web, 1),
			want: reports.Fail, message: []string{"the operator's create of Deployment/data/c1-web"}},
		{name: "a workload deleted while paused",
			tl:   paused().write("5m", RoleOperator, timeline.VerbDelete, server, nil, nil),
			want: reports.Fail, message: []string{"the operator's delete of StatefulSet/data/c1-server"}},
		{name: "reconciled again once resumed",
			tl:   paused().command("6m", "").workload("6m", RoleOperator, server, 3),
			want: reports.Pass},
		{name: "others may write while paused",
			tl:   paused().workload("5m", "scenario", server, 1).counted("5m", server, 1),
			want: reports.Pass},
		{name: "never paused", tl: started(), want: reports.Skip, message: []string{"no SampleCluster paused"}},
		{name: "in real time, a write within the tolerance of the pause is not judged",
			tl:  paused().workload("3m2s", RoleOperator, server, 3),
			cfg: &Config{Tolerance: 5e9}, want: reports.Pass, message: []string{"1 not judged"}},
		{name: "operator-rs: paused by the spec",
			tl:  started().spec("3m", pausedSpec).workload("4m", RoleOperator, server, 3),
			cfg: rs, want: reports.Fail, message: []string{"while paused at +4m0s"}},
		{name: "operator-rs: the annotation is not its switch",
			tl:  paused().workload("4m", RoleOperator, server, 3),
			cfg: rs, want: reports.Skip},
	})
}

func TestScaledToZero(t *testing.T) {
	rs := &Config{Profile: ProfileOperatorRS}
	bound := DefaultConfig()
	runTable(t, "STACKABLE-006", []ruleCase{
		{name: "stopped", tl: stopped(), want: reports.Pass},
		{name: "stopped keeps replicas",
			tl:   started().command("3m", commandStopped).status("3m", noPods(), settled(), notDegraded(), reconciling(), stoppedCond()),
			want: reports.Fail, message: []string{"SampleCluster/data/c1: stopped, but StatefulSet/data/c1-server has spec.replicas 2 (at +3m0s, after the change at +3m0s)"},
			evidence: []string{"3m", "0s"}},
		{name: "scaled up again while stopped",
			tl:   stopped().workload("8m", RoleOperator, server, 2),
			want: reports.Fail, message: []string{"write at +8m0s"}},
		{name: "someone scales it up: the operator must undo it",
			tl:   stopped().workload("8m", "scenario", server, 2),
			want: reports.Fail, message: []string{"has spec.replicas 2 (at +8m0s, after the change at +8m0s)"}},
		{name: "someone scales it up and the operator undoes it",
			tl:   stopped().workload("8m", "scenario", server, 2).workload("8m", RoleOperator, server, 0),
			want: reports.Pass},
		{name: "a DaemonSet deleted",
			tl: threeRoles().command("3m", commandStopped).
				workload("3m", RoleOperator, server, 0).workload("3m", RoleOperator, web, 0).
				write("3m", RoleOperator, timeline.VerbDelete, agent, nil, nil),
			want: reports.Pass},
		{name: "a DaemonSet that schedules no pod (an unreachable node selector)",
			tl: threeRoles().command("3m", commandStopped).
				workload("3m", RoleOperator, server, 0).workload("3m", RoleOperator, web, 0).
				workload("3m", RoleOperator, agent, 0).scheduled("3m", 0, 0, 0),
			want: reports.Pass},
		{name: "a DaemonSet left running",
			tl: threeRoles().command("3m", commandStopped).
				workload("3m", RoleOperator, server, 0).workload("3m", RoleOperator, web, 0),
			want: reports.Fail, message: []string{"DaemonSet/data/c1-agent is not deleted and schedules 2 pods"}},
		{name: "started again", tl: stopped().command("9m", "").workload("9m", RoleOperator, server, 2), want: reports.Pass},
		{name: "never stopped", tl: started(), want: reports.Skip, message: []string{"no SampleCluster stopped"}},
		{name: "the operator down when stopped owes it once back",
			tl: started().process("2m", timeline.VerbKill).command("3m", commandStopped).
				process("7m", timeline.VerbStart).workload("7m", RoleOperator, server, 0),
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "its calls failing when stopped: owed after its retry, its reconcile's writes one by one",
			tl: threeRoles().process("3m", timeline.VerbFault).command("3m", commandStopped).process("4m", timeline.VerbClear).
				workload("4m20s", RoleOperator, server, 0).workload("4m20s", RoleOperator, web, 0).
				write("4m20s", RoleOperator, timeline.VerbDelete, agent, nil, nil),
			cfg: &bound, want: reports.Pass, message: []string{"1 judged"}},
		{name: "its calls failing when stopped, and late after its retry (as long after the clear as they failed)",
			tl: threeRoles().process("3m", timeline.VerbFault).command("3m", commandStopped).process("4m", timeline.VerbClear).
				workload("5m40s", RoleOperator, server, 0).workload("5m40s", RoleOperator, web, 0).
				write("5m40s", RoleOperator, timeline.VerbDelete, agent, nil, nil),
			cfg: &bound, want: reports.Fail, message: []string{"DaemonSet/data/c1-agent is not deleted and schedules 2 pods (at +5m30s, after the change at +3m0s)"}},
		{name: "operator-rs: stopped by the spec",
			tl: started().spec("3m", specOf{Roles: roles().Roles, ClusterOperation: clusterOperation{Stopped: true}}).
				workload("3m", RoleOperator, server, 0),
			cfg: rs, want: reports.Pass, message: []string{"1 judged"}},
		{name: "operator-rs: a pause takes precedence over stopped",
			tl:  started().spec("3m", specOf{Roles: roles().Roles, ClusterOperation: clusterOperation{Stopped: true, ReconciliationPaused: true}}),
			cfg: rs, want: reports.Skip},
	})
}
