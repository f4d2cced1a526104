// Package certify runs a team's own Go reconciler in a role of one of
// opcert's mechanisms (library mode): in the deterministic simulator, in
// virtual time, against a real kube-apiserver, judged by the same rules and
// reported in the same files as `opcert run`.
//
// The team gives a constructor (New) that builds its reconciler from the
// run's client, the run's clock and the name of the object it owns. Every
// time the reconciler writes must come from that clock: a run in virtual
// time jumps it, and a lastTransitionTime read from the wall clock
// (time.Now, metav1.Now, meta.SetStatusCondition) stops the run with a
// message saying so rather than give a verdict on wrong times.
//
// Where a role's world drives a decision core rather than a reconciler
// (seed 003's roles, which work on a simulated node's files), the team
// gives Options.Core instead: a constructor of its implementation of the
// role's interface (conformance/staticpod/contract), which the world asks
// at every look with its view of the node and the run's virtual instant.
//
// Three entry points share Options: Run returns the report (and can write
// junit.xml, report.json, report.md and the timelines), Test reports into a
// testing.T (a subtest per scenario and rule), and Describe registers Ginkgo
// v2 specs, one per scenario and rule, labelled with the mechanism and the
// rule's ID, so that --label-filter picks them and the suite's JUnit
// carries the verdicts.
//
// Every mechanism opcert ships is found by name (conformance/all); a role
// that does not take a team's reconciler (its Role.Forms has no
// FormLibrary: the library column of `opcert mechanisms`) is refused
// before anything starts, with the mechanism's reason.
//
// The API server is opcert's own (kube-apiserver and etcd started for the
// call, or once for many with StartServer, or once for a test package
// with Main, its TestMain; all need the envtest binaries,
// from KUBEBUILDER_ASSETS or opcert's cache), or one the team already runs
// (Options.Config, e.g. its envtest's), on which the CRDs the mechanisms
// need are installed.
package certify
