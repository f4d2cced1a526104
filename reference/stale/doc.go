// Package stale is the reference implementation of stale ClusterOperator
// detection (seed 000, as decision 000
// of conformance/stale/README.md reads it; the table cites it as "decision
// 000").
//
// Rule table (every row is a test case in core_test.go):
//
//	000 §Proposal ¶2   watch Degraded (or Failing), Available, Progressing, Upgradeable
//	000 §Proposal ¶2   no movement for ChallengeAfter (10m): one write prefixes every
//	                   watched message with ChallengePrefix, verbatim
//	decision 000       movement = a newer lastTransitionTime, or any change to a watched
//	                   condition not written by the detector (an answer is movement,
//	                   so a healthy operator is not challenged in a loop)
//	000 §Proposal ¶3   the operator answers by writing the message back
//	000 §Proposal ¶4   no answer within UnknownAfter (10m more): one write sets those
//	                   conditions Unknown with the seed's second text, quoting the
//	                   status and message they had when challenged
//	000 §Proposal ¶5   any watched condition updated: the operator is alive, state clears
//	000 §Risks         at most 2 writes per operator per cycle, none while it moves
//
// The core (Step) is a pure function of the remembered state, the observed
// conditions and now; it returns the conditions to write, the new memory and
// the instant it needs to look again, so the detector never polls. The
// Detector adapter does the reads and writes.
//
// Choices the seed leaves open: the reason of a condition is kept when it is
// set Unknown (the seed changes only message and status); a detector that
// first sees an object already challenged or marked by an earlier instance
// resumes that phase, giving the operator a full answer window from now; the
// "20 minutes" of the second text is the sum of the two thresholds.
package stale
