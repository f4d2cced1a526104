// Package faithful holds variants of seed 000's two roles written from the
// seed (detection and reporting of stale ClusterOperators), not from opcert's
// reference: detectors and operators that differ from reference/stale and
// reference/operator wherever the seed allows, so that the STALE rules are
// shown to accept what the seed permits (the reference is one faithful
// implementation; the rules accept all of them). opcert selftest plays each on
// every built-in scenario of the mechanism, and none may fail a rule.
//
// What 000 leaves open, and what the variants choose:
//
//   - when, within the reaction bound (the 30s of §Test Plan), a detector
//     looks again past its 10-minute deadlines: one resyncs every object
//     on a period, the other asks to be called a few seconds after each
//     deadline;
//   - the reason a challenge or a mark gives (§Proposal names none): one
//     keeps the operator's, the other writes its own on the mark;
//   - the order of status.conditions in a write;
//   - an operator's messages and reasons, the conditions it adds next to
//     the watched ones, and when within the bound it resets a challenge
//     (library-go's status syncer prefixes messages with the condition
//     type and adds EvaluationConditionsDetected, docs/upstream.md).
//
// The challenge's and the mark's texts are the seed's own (§Proposal ¶2,
// ¶4), written here again from the seed. This package imports nothing of
// opcert's, reference/ least of all: a test fails if it does.
package faithful
