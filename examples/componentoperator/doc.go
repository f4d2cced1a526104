// Package componentoperator is an operator of one component of an
// OpenShift-style release, written from seed 001 (the ClusterOperator
// contract) the way a team writes one, and nothing else of opcert's: it
// imports no opcert package (imports_test.go fails if it does). opcert's
// process- and cluster-mode tests certify it on every clusteroperator
// built-in that plays in real time (conformance/clusteroperator,
// processes_e2e_test.go and cluster_e2e_test.go).
//
// It is a controller-runtime manager: informers on its ClusterOperator
// and on the Deployments, DaemonSets, pods and ConfigMaps of its
// namespace, resynced every Config.Resync, feed one workqueue whose every
// item means "look again"; the loop (Reconciler) runs on the wall clock.
// At each look it
//
//   - creates its ClusterOperator if it is missing (nothing else does);
//   - writes every operand whose pod template does not ask for the
//     version it runs (label opcert.io/version: how the pods of opcert's
//     world, and the rules judging it, tell one version's pods from
//     another's), and, if Config.PodPace is set, the annotation
//     opcert.io/ready-after that paces opcert's simulated pods;
//   - reports, in one status write and only when something changed:
//     the operator's version once every operand runs it alone, every pod
//     ready, a DaemonSet on every node (until then the version it had);
//     Progressing True "Deploying 4.0.1, 2 of 5 pods ready" while the
//     version it reports is not the one it runs, False "Deployed 4.0.1"
//     after, stamped when the version moves; Available False before its
//     first rollout ends, then True while every operand has a ready pod;
//     Degraded True when the API server refuses an operand write (tried
//     again after Config.RetryAfter) or when its rollout has not moved for
//     Config.StallAfter, naming what it waits for; Upgradeable False with
//     the administrator's text while the ConfigMap NAME-admin holds an
//     upgradeBlocker, True otherwise.
//
// Its reasons and messages are its own. It keeps in memory only when its
// rollout last moved; what it reached is in its ClusterOperator, so a
// restarted process carries on.
//
// Config.Careless is the careless variant: it reports the new version as
// soon as the operands' specs ask for it, while old pods still run, which
// seed 001 §Version reporting during an upgrade forbids (rule CO-002).
//
// Command componentoperator (cmd/componentoperator) reads its settings
// from flags that default to the OPCERT_* variables opcert's process
// mode sets (OPCERT_NAME, OPCERT_NAMESPACE, OPCERT_VERSION,
// OPCERT_OPERANDS, OPCERT_NODES, OPCERT_READY_AFTER, OPCERT_TIME_SCALE,
// which multiplies its thresholds), and from its container's arguments
// and the downward API on a cluster (deploy.yaml).
package componentoperator
