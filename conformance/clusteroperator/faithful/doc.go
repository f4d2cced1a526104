// Package faithful holds component operators of seed 001 written from the seed
// alone, not from reference/component (it neither imports nor copies it): the
// faithful variants the self-test plays on every built-in to show that the CO
// rules accept more than the reference (the reference is one faithful
// implementation; the rules accept all of them).
//
// One operator, two variants (Variant), each differing from the reference
// wherever seed 001 allows:
//
//   - Requeue: it reacts to what it sees only at a requeue 20s after the
//     change (within the rules' 30s reaction bound), reports Degraded,
//     leaves Upgradeable out unless something must be fixed, reports the
//     operator's version alone, reads Available as a quorum of each operand
//     (more than half its pods ready), and words and reasons every message
//     its own way, in another condition order.
//   - Resync: it looks only on a 25s resync grid, reports Failing
//     (Degraded's older name), reports operand versions before the
//     operator's, writes Upgradeable True when nothing blocks, counts its
//     installation rolled out on two thirds of a DaemonSet's nodes ("within
//     some reasonable percentage"), and moves the version of an upgrade as
//     soon as no old pod runs and every spec asks for it, before the new
//     pods are ready ("as soon as you can guarantee you are not and will not
//     run any old versions").
//
// On an operand write the API server refuses, both go on looking and
// retry at their next look; Requeue reports Degraded at once, Resync only
// once the rollout has stalled, naming the refused write in the stall's
// detail (001 honored by components 2: "the API servers are down so I
// failed to update").
//
// Both follow the world's conventions (conformance/clusteroperator's
// payload): the version the operator runs is its own Deployment's pod
// template label opcert.io/version; its operands, in the namespace of its
// name, carry that label on their pod template; the administrator's
// blocker is ConfigMap "<name>-admin" key upgradeBlocker; a workload's
// opcert.io/ready-after tells the simulated pods their pace.
package faithful
