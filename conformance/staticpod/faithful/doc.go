// Package faithful holds faithful variants of the roles a team brings to
// seed 003 (fallback on failing revisions of static pods): two
// startup-monitors and two operators, written from the seed (what it asks
// is on conformance/staticpod/README.md) and differing from the reference wherever
// the seed allows. Each must pass every STATICPOD rule on every built-in
// scenario (`opcert selftest` plays them; a Style rule may warn).
//
// They implement the role contract (conformance/staticpod/contract): the
// view a startup-monitor or an operator is given at a look and the
// decision it returns, as a team's core in library mode does. They use
// nothing of reference/staticpod (conformancetest's
// TestRulesImportNoReference holds that), so that a variant is the seed
// read again, not the reference reworded.
//
// # Startup-monitors
//
//   - Watchful: the seed's checks in its order, read the other way where
//     the seed reads both ways: etcd failing is EtcdUnhealthy (003 §Test
//     Plan, "The reason is EtcdUnhealthy") where the reference says
//     Unhealthy (the order of §Readiness). Its own messages. After a
//     fallback it keeps its manifest and waits (the seed has it remove
//     its manifest only once ready, step 2): a retry of its revision
//     gives the operand a full timeout again.
//   - Resyncing: reacts on a 30-second resync, not at the instant: it
//     falls back 30s after the timeout, and links last-known-good 20s
//     after it first sees the operand ready (within the 1m reaction
//     bound). Unhealthy for etcd (the seed's order), its own messages,
//     the unfinished hooks listed one per line.
//
// # Operators
//
//   - Doubling: the first retry 20m after the fallback (">=N minutes"),
//     doubling up to 2h (a cap under the seed's 6h maximum, as library-go
//     has it), no retry after CrashLooping or NeverStartedUp, Degraded
//     with its own reason (the seed names none) and message.
//   - Tripling: the first retry 15m after the fallback, tripling up to
//     6h, each asked at its next 30-second resync after it is due; the
//     fallback's own reason as Degraded's reason, the termination message
//     before the fallback message.
package faithful
