package rules

import (
	"fmt"

	"github.com/opcert/opcert/judge"
)

// Rules returns the STACKABLE rules judged against cfg, in ID order. In the
// operator-rs profile STACKABLE-002 and 003 are not judged: operator-rs builds
// no Progressing or Degraded condition (docs/upstream.md). STACKABLE-008 (no
// status written while the reconcile fails) is retired: the ADR's precondition
// says when the table applies, and an operator may report its error itself
// (decision 004, conformance/stackable/README.md). 009 and 010 are Style
// rules: they warn, and fail only under --strict.
func Rules(cfg Config) []judge.Rule {
	available := "Available follows the table's rows over the cluster (True iff every role has as many replicas available as the cluster's spec asks; otherwise Unknown if any of its pods has phase Unknown, else False), and is False too once operator-command is Stopped"
	command := "Paused and Stopped follow the operator-command annotation (True iff it is Paused, resp. Stopped)"
	pause, stop := "while operator-command is Paused", "once operator-command is Stopped"
	if cfg.operatorRS() {
		available = "Available is True iff every workload is available as operator-rs counts it (StatefulSet and Deployment: spec.replicas == status.availableReplicas != 0; DaemonSet: status.numberReady > 0), False otherwise: no pod phases, the highest status kept in the order True < False < Unknown"
		command = "ReconciliationPaused follows spec.clusterOperation.reconciliationPaused and Stopped follows spec.clusterOperation.stopped, Unknown when both are set"
		pause, stop = "while spec.clusterOperation.reconciliationPaused is set", "once spec.clusterOperation.stopped is set (reconciliation not paused)"
	}
	notRS := func(s string) string {
		if cfg.operatorRS() {
			return s + "; not judged in the operator-rs profile, which builds no such condition"
		}
		return s
	}
	return []judge.Rule{
		{ID: "STACKABLE-001", Section: "004 §Implementation details, Available rows; decision 004", Role: RoleOperator,
			Statement: fmt.Sprintf("for every state of a SampleCluster's roles and pods, reconciled without errors, %s, %s (statuses only: the ADR names no reason and gives its messages as examples)", available, reconcile(cfg)),
			Check:     cfg.check(r001)},
		{ID: "STACKABLE-002", Section: "004 §Implementation details, Progressing rows; decision 004", Role: RoleOperator,
			Statement: notRS(fmt.Sprintf("for every state of a SampleCluster's roles and pods, reconciled without errors, Progressing is True if the replicas differ from what the spec asks and a pod's phase is not Failed, False if they do not differ or a pod is Failed (either where both rows hold, any status where none does), False accepted once stopped, %s", reconcile(cfg))),
			Check:     cfg.check(r002)},
		{ID: "STACKABLE-003", Section: "004 §Implementation details, Degraded rows; decision 004", Role: RoleOperator,
			Statement: notRS(fmt.Sprintf("for every state of a SampleCluster's roles and pods, reconciled without errors, Degraded is True if a role has fewer replicas available than the spec asks and a pod has phase Unknown or Failed, False if every role has them (any status where no row holds), False accepted once stopped, %s", reconcile(cfg))),
			Check:     cfg.check(r003)},
		{ID: "STACKABLE-004", Section: "004 §Implementation details, Paused and Stopped rows", Role: RoleOperator,
			Statement: fmt.Sprintf("%s, %s", command, reconcile(cfg)),
			Check:     cfg.check(r004)},
		{ID: "STACKABLE-005", Section: "004 §Implementation details, Paused True", Role: RoleOperator,
			Statement: fmt.Sprintf("%s, the operator writes none of the cluster's workloads (no create, update or delete) once %s have passed: the cluster is not reconciled", pause, cfg.slack()),
			Check:     cfg.check(r005)},
		{ID: "STACKABLE-006", Section: "004 §Implementation details, Stopped True; decision 004", Role: RoleOperator,
			Statement: fmt.Sprintf("%s, every workload of the cluster has spec.replicas 0 (a DaemonSet, which cannot scale, is deleted or schedules no pod), %s, and stays so while stopped", stop, reconcile(cfg)),
			Check:     cfg.check(r006)},
		{ID: "STACKABLE-007", Section: "004 §Decision Drivers, transition history; 004 §Context and Problem Statement; docs/upstream.md", Role: RoleOperator,
			Statement: cfg.validity(),
			Check:     cfg.check(r007)},
		{ID: "STACKABLE-009", Section: "004 §Implementation details, Example Message column; 004 §Set Status Conditions Only, Pros", Role: RoleOperator, Style: true,
			Statement: fmt.Sprintf("every condition the operator writes on a SampleCluster has a message, and where the table's example message names the offending pods (Available Unknown, Progressing False on a Failed pod, Degraded True) it names each of them, %s (the example texts themselves are not asked for)", reconcile(cfg)),
			Check:     cfg.check(r009)},
		{ID: "STACKABLE-010", Section: "004 §Set Status Conditions Only, examples; docs/upstream.md, Kubernetes conditions", Role: RoleOperator, Style: true,
			Statement: "every condition the operator writes on a SampleCluster carries a lastProbeTime, as every condition of the ADR's examples does, and its reason, when it has one, is CamelCase, as Kubernetes conditions' are",
			Check:     cfg.check(r010)},
	}
}

// validity says what STACKABLE-007 asks in the profile.
func (c Config) validity() string {
	if c.operatorRS() {
		return "every condition the operator writes on a SampleCluster is valid: status True, False or Unknown, lastTransitionTime, when set (operator-rs sets none on a condition it adds), not after the write and moved exactly when the status changes, lastProbeTime, when set, between it and the write"
	}
	return fmt.Sprintf("every condition the operator writes on a SampleCluster is valid: status True, False or Unknown, lastTransitionTime set, not after the write, moved exactly when the status changes (to the write's time, or when the operator saw the change, within %s), lastProbeTime, when set, between it and the write", c.slack())
}

// reconcile says how soon the operator must reflect a change.
func reconcile(cfg Config) string {
	if cfg.slack() == 0 {
		return "within one reconcile (once the instant of the change is quiet)"
	}
	return "within " + cfg.slack().String() + " of each change (the reaction bound)"
}

// check is the Check of the rule of index i: its verdict of the rules'
// judging.
func (c Config) check(i int) func(*judge.Judging) judge.Verdict {
	return func(j *judge.Judging) judge.Verdict { return c.verdicts(j)[i] }
}
