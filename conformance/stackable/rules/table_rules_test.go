package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestAvailableFollows(t *testing.T) {
	realTime := &Config{Profile: ProfileSeed, Tolerance: 5e9}
	rs := &Config{Profile: ProfileOperatorRS}
	runTable(t, "STACKABLE-001", []ruleCase{
		{name: "started", tl: started(), want: reports.Pass, message: []string{"2 judged"}},
		{name: "a pod failed", tl: failed(), want: reports.Pass},
		{name: "a pod lost", tl: lost(), want: reports.Pass},
		{name: "stopped", tl: stopped(), want: reports.Pass},
		{name: "paused: still published", tl: paused(), want: reports.Pass},
		{name: "ignores Unknown",
			tl: started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).
				status("2m", unavailable(), starting(), degraded("[c1-server-0]", "[Unknown]"), reconciling(), running()),
			want: reports.Fail, message: []string{`Available is False/ReplicasUnavailable`, "want Unknown (StatefulSet c1-server 1/2 available (c1-server-0 Unknown))", "at +2m0s"},
			evidence: []string{"2m", "2m", "2m"}},
		{name: "Available True when stopped",
			tl: started().command("3m", commandStopped).workload("3m", RoleOperator, server, 0).
				gonePod("3m", "c1-server-0").gonePod("3m", "c1-server-1").counted("3m", server, 0).
				status("3m", available(), settled(), notDegraded(), reconciling(), stoppedCond()),
			want: reports.Fail, message: []string{`want False (StatefulSet c1-server 0/2 available; operator-command Stopped)`}},
		{name: "stopped, then paused: the spec still asks for its replicas, none are there",
			tl:   stopped().command("4m", commandPaused).status("4m", unavailable(), starting(), notDegraded(), pausedCond(), running()),
			want: reports.Pass},
		{name: "stopped, then paused, Available True with no pod running",
			tl:   stopped().command("4m", commandPaused).status("4m", available(), settled(), notDegraded(), pausedCond(), running()),
			want: reports.Fail, message: []string{"Available is True", "want False (StatefulSet c1-server 0/2 available)"}},
		{name: "more available than the cluster's spec asks, held while paused",
			tl:   paused().spec("5m", roles1()).status("5m", unavailable(), starting(), notDegraded(), pausedCond(), running()),
			want: reports.Pass},
		{name: "more available than asked read as available",
			tl:   paused().spec("5m", roles1()).status("5m", available(), settled(), notDegraded(), pausedCond(), running()),
			want: reports.Fail, message: []string{"Available is True", "want False (StatefulSet c1-server 2/1 available)"}},
		{name: "any_pod over the cluster: a pod Unknown in one role, Failed in another, is Unknown",
			tl: threeRoles().status("2m", unavailable(), podFailed("[c1-agent-b]"), degraded("[c1-agent-b]", "[Failed]"), reconciling(), running()).
				pod("3m", "web", "c1-web-5d8-x1", "Failed").counted("3m", web, 0).
				pod("3m", "server", "c1-server-0", "Unknown").counted("3m", server, 0).
				status("3m", availabilityUnknown("[c1-server-0]"), podFailed("[c1-agent-b,c1-web-5d8-x1]"), degraded("[c1-agent-b,c1-server-0,c1-web-5d8-x1]", "[Unknown,Failed]"), reconciling(), running()),
			want: reports.Pass},
		{name: "merged per workload: False over Unknown",
			tl: threeRoles().status("2m", unavailable(), podFailed("[c1-agent-b]"), degraded("[c1-agent-b]", "[Failed]"), reconciling(), running()).
				pod("3m", "web", "c1-web-5d8-x1", "Failed").counted("3m", web, 0).
				pod("3m", "server", "c1-server-0", "Unknown").counted("3m", server, 0).
				status("3m", unavailable(), podFailed("[c1-agent-b,c1-web-5d8-x1]"), degraded("[c1-agent-b,c1-server-0,c1-web-5d8-x1]", "[Unknown,Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"Available is False", "want Unknown"}},
		{name: "within the reaction bound",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m30s", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			cfg: &Config{Reaction: 30e9}, want: reports.Pass, message: []string{"3 judged"}},
		{name: "beyond the reaction bound",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m31s", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			cfg: &Config{Reaction: 30e9}, want: reports.Fail, message: []string{"at +2m30s, after the change at +2m0s"}},
		{name: "one change behind",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m", available(), settled(), notDegraded(), reconciling(), running()).
				pod("3m", "server", "c1-server-1", "Running").counted("3m", server, 2).
				status("3m", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"at +2m0s", "(and 1 more)"}, evidence: []string{"2m", "3m"}},
		{name: "nothing written after a change",
			tl:   started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1),
			want: reports.Fail, message: []string{"Available is True/Available", "want False"}, evidence: []string{"2m", "30s"}},
		{name: "a later write that breaks what was right",
			tl:   failed().status("5m", available(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"write at +5m0s, reflecting no state since +2m0s"}, evidence: []string{"2m", "5m"}},
		{name: "other reasons and messages",
			tl: started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).
				status("2m", c(condAvailable, statusUnknown).because("NodeLost", "c1-server-0 lost"), starting(), degraded("[c1-server-0]", "[Unknown]"), reconciling(), running()),
			want: reports.Pass},
		{name: "the operator down owes nothing until back",
			tl: started().process("1m", timeline.VerbKill).pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				process("10m", timeline.VerbStart).
				status("10m", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Pass, message: []string{"3 judged"}},
		{name: "the operator down until the end",
			tl:   started().process("1m", timeline.VerbKill).pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1),
			want: reports.Pass, message: []string{"1 not judged (operator down from +2m0s)"}},
		{name: "a failure in a recording gap is not judged",
			tl: started().gap("1m", "3m").pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m", available(), settled(), notDegraded(), reconciling(), running()),
			want: reports.Skip, message: []string{"recording gap from +1m0s to +3m0s"}},
		{name: "a reconcile that fails owes nothing",
			tl: started().spec("2m", specOf{Roles: roles().Roles, Broken: "cannot render"}).
				pod("3m", "server", "c1-server-1", "Failed").counted("3m", server, 1),
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "no role",
			tl:   newTimeline().process("0s", timeline.VerbStart).cluster("0s", "", specOf{}),
			want: reports.Skip, message: []string{"no SampleCluster with a workload"}},
		{name: "nothing published for a new cluster",
			tl:   newTimeline().process("0s", timeline.VerbStart).cluster("0s", "", roles()),
			want: reports.Fail, message: []string{"Available is absent", "(StatefulSet c1-server 0/2 available (not created))"}},
		{name: "a role added while paused counts with none of its replicas",
			tl: started().command("3m", commandPaused).status("3m", available(), settled(), notDegraded(), pausedCond(), running()).
				spec("5m", specOf{Roles: append(roles().Roles, map[string]any{"name": "web", "kind": kindDeployment, "replicas": 1})}).
				status("5m", unavailable(), starting(), notDegraded(), pausedCond(), running()),
			want: reports.Pass},
		{name: "a role added while paused overlooked",
			tl: started().command("3m", commandPaused).status("3m", available(), settled(), notDegraded(), pausedCond(), running()).
				spec("5m", specOf{Roles: append(roles().Roles, map[string]any{"name": "web", "kind": kindDeployment, "replicas": 1})}),
			want: reports.Fail, message: []string{"Deployment c1-web 0/1 available (not created)"}},
		{name: "in real time, within the tolerance",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m3s", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			cfg: realTime, want: reports.Pass},
		{name: "in real time, late",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m6s", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			cfg: realTime, want: reports.Fail, message: []string{"at +2m5s"}},
		{name: "operator-rs: counts only, a pod Unknown is False",
			tl:  started().pod("2m", "server", "c1-server-0", "Unknown").counted("2m", server, 1).status("2m", unavailable()),
			cfg: rs, want: reports.Pass},
		{name: "operator-rs: Unknown from a pod phase is not what it ships",
			tl:  lost(),
			cfg: rs, want: reports.Fail, message: []string{"Available is Unknown/PodPhaseUnknown", "want False"}},
	})
}

func TestProgressingFollows(t *testing.T) {
	runTable(t, "STACKABLE-002", []ruleCase{
		{name: "started", tl: started(), want: reports.Pass},
		{name: "a pod failed", tl: failed(), want: reports.Pass},
		{name: "stopped", tl: stopped(), want: reports.Pass},
		{name: "a pod Failed, another running: the rows overlap, Progressing True is the other faithful answer",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m", unavailable(), starting(), degraded("[c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Pass},
		{name: "Progressing True with every pod Failed",
			tl: started().pod("2m", "server", "c1-server-0", "Failed").pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 0).
				status("2m", unavailable(), starting(), degraded("[c1-server-0,c1-server-1]", "[Failed]"), reconciling(), running()),
			want: reports.Fail, message: []string{"Progressing is True/ReplicasStarting", "want False (StatefulSet c1-server 0/2 available (c1-server-0 Failed, c1-server-1 Failed))"}},
		{name: "Progressing True once every replica is available",
			tl:   started().status("1m", available(), starting(), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"Progressing is True/ReplicasStarting", "want False"}},
		{name: "Progressing True when stopped",
			tl: started().command("3m", commandStopped).workload("3m", RoleOperator, server, 0).
				status("3m", noPods(), starting(), notDegraded(), reconciling(), stoppedCond()),
			want: reports.Fail, message: []string{"want False (StatefulSet c1-server 2/2 available; operator-command Stopped)"}},
		{name: "operator-rs builds no Progressing",
			tl: started(), cfg: &Config{Profile: ProfileOperatorRS}, want: reports.Skip, message: []string{"operator-rs profile builds no Progressing"}},
	})
}

func TestDegradedFollows(t *testing.T) {
	runTable(t, "STACKABLE-003", []ruleCase{
		{name: "a pod failed", tl: failed(), want: reports.Pass},
		{name: "a pod lost", tl: lost(), want: reports.Pass},
		{name: "Degraded never set",
			tl: started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
				status("2m", unavailable(), podFailed("[c1-server-1]"), notDegraded(), reconciling(), running()),
			want: reports.Fail, message: []string{"Degraded is False/NotDegraded", "want True (StatefulSet c1-server 1/2 available (c1-server-1 Failed))"}},
		{name: "a scale-down in flight is not degraded",
			tl: started().workload("2m", "scenario", server, 1).pod("2m", "server", "c1-server-1", "Failed").
				status("2m", unavailable(), podFailed("[c1-server-1]"), notDegraded(), reconciling(), running()),
			want: reports.Pass},
		{name: "operator-rs builds no Degraded",
			tl: failed(), cfg: &Config{Profile: ProfileOperatorRS}, want: reports.Skip},
	})
}

// threeRoles is c1 with a StatefulSet, a Deployment and a DaemonSet, all
// available at 30s; at 2m the DaemonSet's pod on one node fails.
func threeRoles() *builder {
	spec := specOf{Roles: []map[string]any{{"name": "server", "kind": kindStatefulSet, "replicas": 1},
		{"name": "web", "kind": kindDeployment, "replicas": 1}, {"name": "agent", "kind": kindDaemonSet}}}
	return newTimeline().process("0s", timeline.VerbStart).
		cluster("0s", "", spec).
		workload("0s", RoleOperator, server, 1).workload("0s", RoleOperator, web, 1).workload("0s", RoleOperator, agent, 0).
		status("0s", unavailable(), starting(), notDegraded(), reconciling(), running()).
		pod("30s", "server", "c1-server-0", "Running").counted("30s", server, 1).
		pod("30s", "web", "c1-web-5d8-x1", "Running").counted("30s", web, 1).
		pod("30s", "agent", "c1-agent-a", "Running").pod("30s", "agent", "c1-agent-b", "Running").scheduled("30s", 2, 2, 2).
		status("30s", available(), settled(), notDegraded(), reconciling(), running()).
		pod("2m", "agent", "c1-agent-b", "Failed").scheduled("2m", 2, 1, 1)
}

func TestThreeWorkloads(t *testing.T) {
	right := threeRoles().status("2m", unavailable(), podFailed("[c1-agent-b]"), degraded("[c1-agent-b]", "[Failed]"), reconciling(), running())
	for _, id := range []string{"STACKABLE-001", "STACKABLE-002", "STACKABLE-003"} {
		runTable(t, id, []ruleCase{{name: "one of three degraded", tl: right, want: reports.Pass, message: []string{"3 judged"}}})
	}
	runTable(t, "STACKABLE-003", []ruleCase{{name: "the DaemonSet overlooked",
		tl:   threeRoles().status("2m", unavailable(), podFailed("[c1-agent-b]"), notDegraded(), reconciling(), running()),
		want: reports.Fail, message: []string{"StatefulSet c1-server 1/1 available; Deployment c1-web 1/1 available; DaemonSet c1-agent 1/2 available (c1-agent-b Failed)"}}})
	runTable(t, "STACKABLE-001", []ruleCase{{name: "operator-rs: a DaemonSet with a ready pod is available",
		tl:  threeRoles().status("2m", available()),
		cfg: &Config{Profile: ProfileOperatorRS}, want: reports.Pass}})
}

func TestCommandFollows(t *testing.T) {
	rs := &Config{Profile: ProfileOperatorRS}
	rsCond := func(typ, status string) cond { return c(typ, status) }
	runTable(t, "STACKABLE-004", []ruleCase{
		{name: "started", tl: started(), want: reports.Pass},
		{name: "paused", tl: paused(), want: reports.Pass},
		{name: "stopped", tl: stopped(), want: reports.Pass},
		{name: "Paused not published",
			tl:   started().command("3m", commandPaused),
			want: reports.Fail, message: []string{"Paused is False/Reconciling", `want True (operator-command "Paused")`}},
		{name: "Stopped with the ADR's example reason as its message",
			tl: started().command("3m", commandStopped).
				status("3m", noPods(), settled(), notDegraded(), reconciling(), stoppedCond().because(reasonStopped, "User requested reconcile stop.")),
			want: reports.Pass},
		{name: "Stopped from the spec is operator-rs's, not the seed's",
			tl: started().spec("3m", specOf{Roles: roles().Roles, ClusterOperation: clusterOperation{Stopped: true}}).
				status("3m", noPods(), settled(), notDegraded(), reconciling(), stoppedCond()),
			want: reports.Fail, message: []string{`Stopped is True/Stopped`, `want False (operator-command "")`}},
		{name: "operator-rs: from spec.clusterOperation, Stopped Unknown when paused too",
			tl: newTimeline().process("0s", timeline.VerbStart).cluster("0s", "", roles()).
				status("0s", rsCond(condReconciliationPaused, statusFalse), rsCond(condStopped, statusFalse)).
				spec("1m", specOf{Roles: roles().Roles, ClusterOperation: clusterOperation{Stopped: true, ReconciliationPaused: true}}).
				status("1m", rsCond(condReconciliationPaused, statusTrue), rsCond(condStopped, statusUnknown)),
			cfg: rs, want: reports.Pass, message: []string{"2 judged"}},
		{name: "operator-rs: the annotation is not its switch",
			tl: newTimeline().process("0s", timeline.VerbStart).cluster("0s", "", roles()).
				status("0s", rsCond(condReconciliationPaused, statusFalse), rsCond(condStopped, statusFalse)).
				command("1m", commandPaused).status("1m", rsCond(condReconciliationPaused, statusTrue), rsCond(condStopped, statusFalse)),
			cfg: rs, want: reports.Fail, message: []string{"ReconciliationPaused is True", "want False (clusterOperation reconciliationPaused false, stopped false)"}},
	})
}

// A rule reports the operator's reactions it measured against the bound:
// only the changes that needed one, from the change to the write that
// matched.
func TestReactionMeasured(t *testing.T) {
	tl := started().pod("2m", "server", "c1-server-1", "Failed").counted("2m", server, 1).
		status("2m20s", unavailable(), podFailed("[c1-server-1]"), degraded("[c1-server-1]", "[Failed]"), reconciling(), running())
	cfg := Config{Reaction: 30e9}
	for _, r := range Rules(cfg) {
		if r.ID != "STACKABLE-001" {
			continue
		}
		v := r.Check(newJudging(tl))
		if v.Status != reports.Pass || len(v.Measures) != 1 {
			t.Fatalf("%s %s, measures %+v", v.Status, v.Message, v.Measures)
		}
		m := v.Measures[0]
		if m.Name != "SampleCluster/Available" || m.Count != 2 || m.Max != 20e9 || m.Budget != 30e9 {
			t.Errorf("measure %+v, want 2 reactions (the start at once, the failure 20s late), max 20s of a 30s bound", m)
		}
	}
}
