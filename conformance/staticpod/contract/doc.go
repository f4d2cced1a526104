// Package contract is seed 003's role contract: what the simulated world
// (conformance/staticpod) drives each role a subject plays through. A
// role is a decision core: at each look the world gives it a view of the
// node (the files and endpoints it would read: the manifests, the
// installer lock, the last-known-good link, termination.log, the
// operand's probes, the mirror pod) and the instant, and carries out what
// it decides (file operations on the node, a condition on the
// ClusterOperator, a retry asked of the installer). The world does the
// I/O; the core reads no clock, file or API.
//
// Four interfaces, one per role, each with a func adapter:
//
//	Monitor    startup-monitor  003 §Proposal, §Readiness, §Upgrade / Downgrade Strategy
//	Installer  installer        003 §Coordination
//	Operator   operator         003 §Retries, §User Stories 2 to 4
//	Pruner     pruner           003 §Pruner
//
// Every implementation speaks it: opcert's reference (reference/staticpod),
// its broken and faithful variants (conformance/staticpod,
// conformance/staticpod/faithful), and a team's own core certified in
// library mode (package certify, Options.Core). It holds types and the
// seed's names (the three annotation keys, the five readiness reasons),
// never a decision: a faithful variant that uses it borrows nothing of the
// reference.
//
// Why a view and not a client: a startup-monitor, an installer and a
// pruner work on a node's files and its operand's loopback endpoints,
// which a Kubernetes client cannot give; the world simulates the node
// (sim/node) and gives each look what a process on it would read. A
// team's binary sees the same node through the seed's paths instead
// (process mode, conformance/staticpod's README).
package contract
