package rules

import (
	"fmt"

	"github.com/opcert/opcert/conformance"
)

// Rules returns the STACKABLE rules judged against cfg, in ID order. In
// the operator-rs profile STACKABLE-002 and 003 are not judged: operator-rs
// builds no Progressing or Degraded condition (UPSTREAM).
func Rules(cfg Config) []conformance.Rule {
	available := "Available matches the table row by row over the cluster's workloads (True iff availableReplicas == replicas; otherwise Unknown if a pod has phase Unknown, else False; merged False over Unknown over True; the table's message with the pods named, the shared design's reason), and is False with \"No Pods running.\" once operator-command is Stopped"
	command := "Paused and Stopped follow the operator-command annotation (True iff it is Paused, resp. Stopped), with the table's messages"
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
	return []conformance.Rule{
		{ID: "STACKABLE-001", Section: "004 §Implementation details, Available rows; DESIGN 004", Role: RoleOperator,
			Statement: fmt.Sprintf("for every state of a SampleCluster's workloads and pods, %s, %s", available, reconcile(cfg)),
			Check:     cfg.availableFollows},
		{ID: "STACKABLE-002", Section: "004 §Implementation details, Progressing rows; DESIGN 004", Role: RoleOperator,
			Statement: notRS(fmt.Sprintf("for every state of a SampleCluster's workloads and pods, Progressing is False iff availableReplicas == replicas, otherwise False if a pod has phase Failed, else True (merged True if any workload is), False once stopped, %s", reconcile(cfg))),
			Check:     cfg.progressingFollows},
		{ID: "STACKABLE-003", Section: "004 §Implementation details, Degraded rows; DESIGN 004", Role: RoleOperator,
			Statement: notRS(fmt.Sprintf("for every state of a SampleCluster's workloads and pods, Degraded is True iff availableReplicas < replicas and a pod has phase Unknown or Failed (merged True if any workload is), False once stopped, %s", reconcile(cfg))),
			Check:     cfg.degradedFollows},
		{ID: "STACKABLE-004", Section: "004 §Implementation details, Paused and Stopped rows", Role: RoleOperator,
			Statement: fmt.Sprintf("%s, %s", command, reconcile(cfg)),
			Check:     cfg.commandFollows},
		{ID: "STACKABLE-005", Section: "004 §Implementation details, Paused True", Role: RoleOperator,
			Statement: pause + ", the operator writes none of the cluster's workloads (no create, update or delete): the cluster is not reconciled",
			Check:     cfg.leftAlone},
		{ID: "STACKABLE-006", Section: "004 §Implementation details, Stopped True; DESIGN 004", Role: RoleOperator,
			Statement: fmt.Sprintf("%s, every workload of the cluster has spec.replicas 0 (a DaemonSet, which cannot scale, is deleted or schedules no pod), %s, and stays so while stopped", stop, reconcile(cfg)),
			Check:     cfg.scaledToZero},
		{ID: "STACKABLE-007", Section: "004 §Context and Problem Statement; 004 §Set Status Conditions Only; UPSTREAM", Role: RoleOperator,
			Statement: cfg.validity(),
			Check:     cfg.validConditions},
		{ID: "STACKABLE-008", Section: "004 §Implementation details, Precondition - Reconcile without errors", Role: RoleOperator,
			Statement: "while a SampleCluster's spec.broken is set (its reconcile fails), the operator writes none of its status: no condition is published from a failed reconcile",
			Check:     cfg.noStatusWhileBroken},
	}
}

// validity says what STACKABLE-007 asks in the profile.
func (c Config) validity() string {
	if c.operatorRS() {
		return "every condition the operator writes on a SampleCluster is valid: status True, False or Unknown, a CamelCase reason when it has one, lastTransitionTime moved exactly when the status changes (operator-rs sets none on a condition it adds, and no lastProbeTime)"
	}
	return "every condition the operator writes on a SampleCluster is valid: status True, False or Unknown, a CamelCase reason, lastTransitionTime set, not after the write and moved exactly when the status changes, lastProbeTime set, not before lastTransitionTime and not after the write"
}

// reconcile says how soon the operator must reflect a change.
func reconcile(cfg Config) string {
	if cfg.Tolerance == 0 {
		return "within one reconcile (once the instant of the change is quiet)"
	}
	return "within " + cfg.Tolerance.String() + " of each change"
}
