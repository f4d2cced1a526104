package rules

import (
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 003 §Retries: no retry after CrashLooping or NeverStartedUp.
func TestSTATICPOD006NoRetry(t *testing.T) {
	runTable(t, "STATICPOD-006", []ruleCase{
		{name: "reference: crash loop, not retried", tl: crashLoop(), end: "2h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "a new revision after a crash loop",
			tl: crashLoop().install("20m", 3).started("20m").ready("20m30s", 3).done("20m30s", 3), end: "2h", want: reports.Pass},
		{name: "a crash loop retried",
			tl: crashLoop().install("16m", 2), end: "2h",
			want: reports.Fail, message: []string{"master-0: revision 2, fallen back from at +6m0s with reason CrashLooping, was asked again of the installer at +16m0s"},
			evidence: []string{"6m", "16m"}},
		{name: "NeverStartedUp retried",
			tl:  newTimeline().running("0s", 1).install("1m", 2).silent("1m").fallback("6m", 2, 1, reasonNeverStartedUp, neverMsg).install("16m", 2),
			end: "2h", want: reports.Fail, message: []string{"NeverStartedUp", "+16m0s"}, evidence: []string{"6m", "16m"}},
		{name: "NotReady is retried", tl: stuckHook(), end: "2h", want: reports.Skip},
		{name: "the installer finishing an old ask is no retry of the operator's",
			tl: crashLoop().reinstall("8m", 2), end: "2h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "no asks on the timeline: not judged",
			tl:  newTimeline().running("0s", 1).reinstall("1m", 2).silent("1m").fallback("6m", 2, 1, reasonNeverStartedUp, neverMsg).reinstall("16m", 2),
			end: "2h", want: reports.Skip, message: []string{"records none of the operator's asks"}},
		{name: "library-go retries every reason",
			tl: crashLoop().install("16m", 2), cfg: libraryGo(), end: "2h", want: reports.Skip, message: []string{"not judged", "UPSTREAM.md"}},
	})
}

// twice is stuckHook's revision 2 failing its first retry too: fallen back
// from at +6m and +21m, so its second retry is due 20m after, at +41m.
func twice() *builder {
	return failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
		install("16m", 2).started("16m").hookStuck("16m").mirror("16m", 2, false).
		fallback("21m", 2, 1, reasonNotReady, notReadyMsg)
}

// retried is failing's revision 2 fallen back from at +6m and installed
// again at off.
func retried(off string) *builder {
	return failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install(off, 2)
}

// 003 §Retries: back-off from 10m, doubling, up to 6h.
func TestSTATICPOD007Backoff(t *testing.T) {
	runTable(t, "STATICPOD-007", []ruleCase{
		{name: "reference: retried 10m after", tl: stuckHook(), end: "2h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "second retry 20m after", tl: twice().install("41m", 2), end: "2h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "500ms late within a tolerance of 1s", tl: retried("16m0.5s"), cfg: tolerance("1s"), end: "2h", want: reports.Pass},
		{name: "library-go: first retry 20m after", tl: retried("26m"), cfg: libraryGo(), end: "2h", want: reports.Pass},
		{name: "library-go: a crash loop is retried too", tl: crashLoop().install("26m", 2), cfg: libraryGo(), end: "2h", want: reports.Pass},
		{name: "retried early",
			tl: retried("12m"), end: "2h",
			want: reports.Fail, message: []string{"master-0: revision 2, fallen back from at +6m0s with reason NotReady, retry 1 (back-off 10m0s), was retried at +12m0s, after 6m0s"},
			evidence: []string{"6m", "12m"}},
		{name: "retried late",
			tl: retried("17m"), end: "2h",
			want: reports.Fail, message: []string{"shown on the mirror pod at +6m0s, was retried at +17m0s, due at +16m0s"}, evidence: []string{"6m", "17m"}},
		{name: "never retried",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "2h",
			want: reports.Fail, message: []string{"was not retried by +16m0s, nor before the end of the run at +2h0m0s"}, evidence: []string{"6m"}},
		{name: "second retry without doubling",
			tl: twice().install("31m", 2), end: "2h",
			want: reports.Fail, message: []string{"retry 2 (back-off 20m0s), was retried at +31m0s, after 10m0s"}, evidence: []string{"21m", "31m"}},
		{name: "library-go: retried after 10m",
			tl: retried("16m"), cfg: libraryGo(), end: "2h",
			want: reports.Fail, message: []string{"back-off 20m0s", "after 10m0s"}, evidence: []string{"6m", "16m"}},
		{name: "a new revision came too late to excuse the retry",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install("20m", 3), end: "2h",
			want: reports.Fail, message: []string{"nor before the operator asked for revision 3 at +20m0s"}, evidence: []string{"6m"}},
		{name: "a new revision before the retry was due",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install("10m", 3), end: "2h",
			want: reports.Skip, message: []string{"not due before the operator asked for revision 3 at +10m0s"}},
		{name: "the run ends before the retry is due",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "16m", want: reports.Skip},
		{name: "the operator was down",
			tl: failing().process("0s", RoleOperator, timeline.VerbStart).process("5m", RoleOperator, timeline.VerbKill).
				fallback("6m", 2, 1, reasonNotReady, notReadyMsg),
			end: "2h", want: reports.Skip, message: []string{"the operator was down"}},
		{name: "no retry after a crash loop", tl: crashLoop(), end: "2h", want: reports.Skip},

		// The operator's ask is judged, not the installer's writes.
		{name: "asked in time, installed later (the installer's write time)",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m", 2).reinstall("16m20s", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "asked late",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m20s", 2).reinstall("16m40s", 2), end: "2h",
			want: reports.Fail, message: []string{"was retried at +16m20s, due at +16m0s"}, evidence: []string{"6m", "16m20s"}},
		{name: "asked in time while the installer was down",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("10m", RoleInstaller, timeline.VerbKill).
				ask("16m", 2).process("20m", RoleInstaller, timeline.VerbStart).reinstall("20m", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "asked late while the installer was down",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("10m", RoleInstaller, timeline.VerbKill).
				process("20m", RoleInstaller, timeline.VerbStart).install("20m", 2), end: "2h",
			want: reports.Fail, message: []string{"was retried at +20m0s, due at +16m0s"}, evidence: []string{"6m", "20m"}},
		{name: "the installer finishing an old ask is no retry: the clock starts again at its fallback",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg).install("23m", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged", "not due before the next fallback on the node at +13m0s"}},
		{name: "retried 10m after the first fallback, ignoring the second",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg).install("16m", 2), end: "2h",
			want: reports.Fail, message: []string{"fallen back from at +13m0s with reason NotReady, retry 1 (back-off 10m0s), was retried at +16m0s, after 3m0s"}, evidence: []string{"13m", "16m"}},
		{name: "a fallback the operator did not ask for does not double the back-off",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg).install("33m", 2), end: "2h",
			want: reports.Fail, message: []string{"retry 1 (back-off 10m0s), shown on the mirror pod at +13m0s, was retried at +33m0s, due at +23m0s"}, evidence: []string{"13m", "33m"}},
		{name: "a fallback not retried before the next one comes",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("17m", 2).started("17m").hookStuck("17m").mirror("17m", 2, false).
				fallback("22m", 2, 1, reasonNotReady, notReadyMsg).install("32m", 2), end: "2h",
			want: reports.Fail, message: []string{"was not retried by +16m0s, nor before the next fallback on the node at +22m0s"}, evidence: []string{"6m"}},
		// A restarted operator keeps its back-off: it owes the retry when due.
		{name: "an operator restarted between two retries keeps the ladder",
			tl: twice().process("0s", RoleOperator, timeline.VerbStart).process("22m", RoleOperator, timeline.VerbKill).
				process("23m", RoleOperator, timeline.VerbStart).install("41m", 2), end: "2h",
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "an operator restarted between two retries that starts the ladder again",
			tl: twice().process("0s", RoleOperator, timeline.VerbStart).process("22m", RoleOperator, timeline.VerbKill).
				process("23m", RoleOperator, timeline.VerbStart).install("33m", 2), end: "2h",
			want: reports.Fail, message: []string{"retry 2 (back-off 20m0s), was retried at +33m0s, after 12m0s"}, evidence: []string{"21m", "33m"}},
		{name: "no asks on the timeline: not judged",
			tl: newTimeline().running("0s", 1).reinstall("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonNotReady, notReadyMsg).reinstall("12m", 2), end: "2h",
			want: reports.Skip, message: []string{"records none of the operator's asks"}},
	})
}

// The back-off of 003 §Retries and of library-go (UPSTREAM.md).
func TestBackoff(t *testing.T) {
	seed, lib := DefaultConfig(), LibraryGo()
	for k, want := range []string{"10m", "20m", "40m", "1h20m", "2h40m", "5h20m", "6h", "6h"} {
		if got := seed.backoff(k + 1); got != d(want) {
			t.Errorf("seed retry %d: %s, want %s", k+1, got, want)
		}
	}
	for k, want := range []string{"20m", "40m", "1h20m", "2h", "2h"} {
		if got := lib.backoff(k + 1); got != d(want) {
			t.Errorf("library-go retry %d: %s, want %s", k+1, got, want)
		}
	}
	if got := seed.backoff(1000); got != 6*time.Hour {
		t.Errorf("retry 1000: %s, want the cap", got)
	}
}

// 003 §Retries, §User Stories 2 and 3: Degraded with the fallback message
// while the fallback lasts; library-go's condition while the mirror pod
// carries the annotations.
func TestSTATICPOD008Degraded(t *testing.T) {
	runTable(t, "STATICPOD-008", []ruleCase{
		{name: "reference: set at +6m, cleared when the retry is ready", tl: stuckHook(), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "reference: a crash loop stays degraded", tl: crashLoop(), end: "1h", want: reports.Pass},
		{name: "within a tolerance of 1s",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m0.5s", "True", notReadyMsg), cfg: tolerance("1s"), end: "1h", want: reports.Pass},
		{name: "library-go: cleared when the retry's mirror pod drops the annotations",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("26m", 2).mirror("26m", 2, false).condition("26m", "False", "").retyped(libraryGoCondition),
			cfg: libraryGo(), end: "1h", want: reports.Pass},
		{name: "never set",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "1h",
			want: reports.Fail, message: []string{"ClusterOperator/kube-apiserver was not Degraded=True at +6m0s", "master-0 fell back from revision 2 at +6m0s"},
			evidence: []string{"0s", "6m"}},
		{name: "set late",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("7m", "True", notReadyMsg), end: "1h",
			want: reports.Fail, message: []string{"not Degraded=True at +6m0s"}, evidence: []string{"0s", "6m"}},
		{name: "without the fallback message",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", "revision 2 failed"), end: "1h",
			want: reports.Fail, message: []string{`message "revision 2 failed" at +6m0s does not carry the fallback message`}, evidence: []string{"6m"}},
		{name: "cleared while retrying",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).mirror("16m", 2, false).condition("16m", "False", ""), end: "1h",
			want: reports.Fail, message: []string{"Degraded set to False at +16m0s, but the fallback (master-0 fell back from revision 2 at +6m0s) was not over"},
			evidence: []string{"6m", "16m"}},
		{name: "not cleared once the retry is ready",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2), end: "1h",
			want: reports.Fail, message: []string{"Degraded was True at +16m30s, but the fallback", "was over at +16m30s"},
			evidence: []string{"6m", "16m30s"}},
		{name: "library-go: the seed's Degraded is not its condition",
			tl: stuckHook(), cfg: libraryGo(), end: "1h",
			want: reports.Fail, message: []string{"not StaticPodFallbackRevisionDegraded=True at +6m0s", "(and 1 more)"}, evidence: []string{"6m", "16m"}},
		{name: "two nodes: cleared only when both are over",
			tl: failing().on("master-1").running("0s", 1).install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
				on("master-0").fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				on("master-1").fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				on("master-0").install("16m", 2).ready("16m30s", 2).
				on("master-1").install("16m", 2).ready("17m", 2).condition("17m", "False", ""),
			end: "1h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "the run ends before the condition clears",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2), cfg: tolerance("1m"), end: "17m",
			want: reports.Pass, message: []string{"1 judged", "the run ended before the condition was due to clear"}},
		{name: "the operator was down when the fallback was over",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				process("10m", RoleOperator, timeline.VerbKill).install("16m", 2).ready("16m30s", 2), end: "1h",
			want: reports.Pass, message: []string{"the operator was down when the fallback was over"}},
		{name: "the run ends with the fallback",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "5m59s", want: reports.Skip},
		{name: "the operator was down",
			tl: failing().process("5m", RoleOperator, timeline.VerbKill).fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "1h",
			want: reports.Skip, message: []string{"the operator was down"}},
		{name: "no fallback", tl: rollout(), end: "1h", want: reports.Skip},
	})
}

// hungAtTheFallback: revision 2 crash loops with flagMsg, shown on the
// mirror pod from +1m1s; the operator, which reported an earlier fallback
// at +3m, is cut off at +4m, before revision 2 is fallen back from at +6m.
func hungAtTheFallback() *builder {
	return newTimeline().condition("0s", "False", "").running("0s", 1).
		install("1m", 2).silent("1m").startedWith("1m", 2, 1, flagMsg).mirror("1m", 2, false).terminated("1m1s", flagMsg).
		startedWith("1m11s", 2, 2, flagMsg).condition("3m", "True", "an earlier fallback").process("4m", RoleOperator, timeline.VerbHang).
		fallback("6m", 2, 1, reasonCrashLooping, crashMsg)
}

// 003 §User Stories 3: the failed revision's termination message is in the
// condition's message while it is True; not judged where there is none to
// carry or the operator could not know it.
func TestSTATICPOD011TerminationMessage(t *testing.T) {
	dropped := "revision 2 fell back: " + crashMsg
	runTable(t, "STATICPOD-011", []ruleCase{
		{name: "reference: a crash loop's message is carried", tl: crashLoopTerminated(), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "carried from the start, then dropped",
			tl: crashLoopTerminated().condition("7m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{`message "revision 2 fell back: 3 start-up attempts in termination.log" at +7m0s does not carry the termination message "Error: unknown flag: --foo" of revision 2`},
			evidence: []string{"1m32s", "6m", "7m"}},
		{name: "never carried",
			tl: crashLoopTerminated().condition("6m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{"at +6m0s does not carry the termination message"}, evidence: []string{"1m32s", "6m"}},
		{name: "the last line's message counts",
			tl: newTimeline().condition("0s", "False", "").running("0s", 1).
				install("1m", 2).silent("1m").startedWith("1m", 2, 1, "old").mirror("1m", 2, false).terminated("1m1s", "old").
				startedWith("1m11s", 2, 2, flagMsg).
				fallback("6m", 2, 1, reasonCrashLooping, crashMsg).condition("6m", "True", dropped+" old"), end: "1h",
			want: reports.Fail, message: []string{`does not carry the termination message "Error: unknown flag: --foo"`}, evidence: []string{"1m11s", "6m"}},
		{name: "a later fallback on the node takes its place",
			tl: crashLoopTerminated().install("16m", 3).silent("16m").started("16m").mirror("16m", 3, false).
				fallback("21m", 3, 1, reasonNeverStartedUp, neverMsg).condition("21m", "True", "revision 3 fell back: "+neverMsg), end: "1h",
			want: reports.Pass, message: []string{"1 judged", "revision 3", "wrote no termination message"}},
		{name: "a False condition is STATICPOD-008's question",
			tl: crashLoopTerminated().condition("6m", "False", ""), end: "1h",
			want: reports.Skip, message: []string{"never True while the fallback was outstanding"}},
		{name: "no message: the revision never started",
			tl: failing().fallback("6m", 2, 1, reasonNeverStartedUp, neverMsg).condition("6m", "True", neverMsg), end: "1h",
			want: reports.Skip, message: []string{"wrote no termination message"}},
		{name: "no message: a crash loop that prints none", tl: crashLoop(), end: "1h",
			want: reports.Skip, message: []string{"wrote no termination message"}},
		{name: "the mirror pod never showed it",
			tl: newTimeline().condition("0s", "False", "").running("0s", 1).
				install("1m", 2).silent("1m").startedWith("1m", 2, 1, flagMsg).mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonCrashLooping, crashMsg).condition("6m", "True", dropped), end: "1h",
			want: reports.Skip, message: []string{"the mirror pod never showed its termination message"}},
		{name: "the operator was down all the while the mirror pod showed it",
			tl: crashLoopTerminated().process("1m", RoleOperator, timeline.VerbKill).process("6m", RoleOperator, timeline.VerbStart).
				condition("7m", "True", dropped), end: "1h",
			want: reports.Skip, message: []string{"the operator was down all the while the mirror pod showed its termination message"}},
		{name: "restarted after it saw the message, it still owes it",
			tl: crashLoopTerminated().process("2m", RoleOperator, timeline.VerbKill).process("3m", RoleOperator, timeline.VerbStart).
				condition("7m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{`at +7m0s does not carry the termination message "Error: unknown flag: --foo"`}, evidence: []string{"1m32s", "6m", "7m"}},
		{name: "restarted after the fallback, it still owes it",
			tl: crashLoopTerminated().process("8m", RoleOperator, timeline.VerbKill).process("9m", RoleOperator, timeline.VerbStart).
				condition("9m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{`at +9m0s does not carry the termination message`}, evidence: []string{"1m32s", "6m", "9m"}},
		{name: "cut off when the fallback was shown: the condition standing then is not its answer",
			tl: hungAtTheFallback(), end: "1h",
			want: reports.Skip, message: []string{"the operator was down when the mirror pod showed the fallback"}},
		{name: "cut off when the fallback was shown, back without the message it saw",
			tl: hungAtTheFallback().process("8m", RoleOperator, timeline.VerbReconnect).condition("8m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{`at +8m0s does not carry the termination message`}, evidence: []string{"1m11s", "6m", "8m"}},
		{name: "back while the mirror pod still showed it, it owes it",
			tl: crashLoopTerminated().process("1m", RoleOperator, timeline.VerbKill).process("5m", RoleOperator, timeline.VerbStart).
				condition("7m", "True", dropped), end: "1h",
			want: reports.Fail, message: []string{`at +7m0s does not carry the termination message`}, evidence: []string{"1m32s", "6m", "7m"}},
		{name: "library-go: not judged", tl: crashLoopTerminated(), cfg: libraryGo(), end: "1h",
			want: reports.Skip, message: []string{"library-go's StaticPodFallbackRevisionDegraded message carries no termination message"}},
		{name: "no fallback", tl: rollout(), end: "1h", want: reports.Skip},
	})
}
