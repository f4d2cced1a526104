// Package conformance is the harness's runner: it plays a scenario of a
// mechanism with a cast of subjects (Play), in virtual time or in real
// time against processes or a cluster, and judges the timeline with the
// mechanism's rules (package judge).
//
// # The mechanism contract
//
// A mechanism (one seed) is a Mechanism: five methods, the least a run
// needs. Name and Seed name it; Roles are the parts subjects play, each
// with its subjects (the reference first) and the forms of a team's
// subject it takes; Rules judge its timelines; Build makes a scenario's
// world on a Stage with the chosen cast. Declare makes a Mechanism of
// these values, for a mechanism's type to embed beside the capabilities it
// has. A mechanism registers once (Register), with its flags and its part
// of the scenario format.
//
// Whatever else a mechanism can do is a capability: a small interface of
// its own, found by type assertion (as controller-runtime's
// LeaderElectionRunnable), never a field left nil. A mechanism without
// one simply lacks it, and the harness says so where it matters:
//
//   - Recordable: opcert watch records it from a live API server, and
//     opcert analyze judges the recording.
//   - Streaming: its rules judge a timeline one event at a time, without
//     holding it.
//   - Tolerant: its rules take slack on their deadlines (real time, a
//     recording's lag).
//   - Scalable: its times can be scaled (--time-scale).
//   - Reactive: its rules judge reactions within a bound it states
//     (--reaction-bound).
//   - Clustered: it can be played on a cluster, and says what a run there
//     touches, creates and needs.
//   - Estimating: it tells what a scenario costs in API calls.
//
// What a team might expect of a mechanism and it cannot do, it says why:
// a role's forms it does not take (Role.Cannot), and, for a mechanism
// that is not Recordable or not Streaming, Limited. `opcert mechanisms`
// prints the capability table (Capabilities) from these declarations
// and implementations, and the capability test
// (conformancetest.Capabilities, run for every registered mechanism by
// conformance/all) fails a ✘ without a reason or a reason left for a ✔.
// docs/concepts/adding-a-mechanism.md lists the steps of adding a
// mechanism; a toy one in conformancetest takes them in one test file.
package conformance
