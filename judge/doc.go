// Package judge is opcert's judging kernel: what a rule is (Rule, its
// Verdict and Problems), the timeline as the rules see it (Judging, the
// Facts a mechanism derives once for all of its rules), the recording gaps
// that excuse a failure (Gaps), the spans a process was down or under an API fault (Processes),
// how a rule accumulates its findings (Findings), and the judging of a
// timeline one event at a time (Stream, over a mechanism's Rulebook).
//
// It reads timelines and writes report cases, and knows nothing of how a
// timeline was made: it imports no API client, no controller runtime, no
// process management and no reference implementation, so that the rules
// packages built on it judge what they are given and nothing else
// (conformance's TestRulesPackagesJudgeOnly holds them to it).
package judge
