package rules

import (
	"slices"
	"testing"

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
			tl: crashLoop().install("16m", 2), cfg: libraryGo(), end: "2h", want: reports.Skip, message: []string{"not judged", "docs/upstream.md"}},
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

// thrice is twice's revision 2 failing its second retry (asked at off2)
// too, fallen back from 5m after it.
func thrice(off2, fb string) *builder {
	return twice().install(off2, 2).started(off2).hookStuck(off2).mirror(off2, 2, false).
		fallback(fb, 2, 1, reasonNotReady, notReadyMsg)
}

// 003 §Retries, decision 003, conformance/staticpod/README.md: a first retry
// no sooner than 10m, a growing back-off, no gap above 6h (the reaction bound
// on the late side only).
func TestSTATICPOD007Backoff(t *testing.T) {
	runTable(t, "STATICPOD-007", []ruleCase{
		{name: "reference: retried 10m after", tl: stuckHook(), end: "2h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "second retry 20m after", tl: twice().install("41m", 2), end: "2h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "faithful: first retry 20m after (library-go's ladder, seed profile)", tl: retried("26m"), end: "2h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "faithful: first retry 10m20s after (a resync late)", tl: retried("16m20s"), end: "2h", want: reports.Pass},
		{name: "faithful: first retry 6h after", tl: retried("6h6m"), end: "7h", want: reports.Pass},
		{name: "faithful: the second wait as long as the first (a cap reached)", tl: twice().install("31m", 2), end: "2h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "faithful: the second wait 30s shorter than the first, within the bound", tl: thrice("41m30s", "46m30s").install("1h6m", 2), cfg: bound(), end: "2h", want: reports.Pass, message: []string{"3 judged"}},
		{name: "library-go: first retry 20m after", tl: retried("26m"), cfg: libraryGo(), end: "2h", want: reports.Pass},
		{name: "library-go: a crash loop is retried too", tl: crashLoop().install("26m", 2), cfg: libraryGo(), end: "2h", want: reports.Pass},
		{name: "retried early",
			tl: retried("12m"), end: "2h",
			want: reports.Fail, message: []string{"master-0: revision 2, fallen back from at +6m0s with reason NotReady, was retried at +12m0s, 6m0s after it: sooner than 10m0s"},
			evidence: []string{"6m", "12m"}},
		{name: "retried 1s early: the bound gives no slack on the early side",
			tl: retried("15m59s"), cfg: bound(), end: "2h",
			want: reports.Fail, message: []string{"9m59s after it: sooner than 10m0s"}, evidence: []string{"6m", "15m59s"}},
		{name: "the second wait shorter than the first",
			tl: thrice("51m", "56m").install("1h6m", 2), end: "2h",
			want: reports.Fail, message: []string{"fallen back from at +56m0s", "was retried at +1h6m0s, 10m0s after the mirror pod showed it: sooner than the retry before, 30m0s after its fallback showed"},
			evidence: []string{"56m", "1h6m"}},
		{name: "retried more than 6h after",
			tl: retried("6h6m1s"), end: "7h",
			want: reports.Fail, message: []string{"shown on the mirror pod at +6m0s, was retried at +6h6m1s: more than 6h0m0s after it"}, evidence: []string{"6m", "6h6m1s"}},
		{name: "retried 6h and the bound after: in time",
			tl: retried("6h7m"), cfg: bound(), end: "7h", want: reports.Pass},
		{name: "retried 6h, the bound and 1s after: late",
			tl: retried("6h7m1s"), cfg: bound(), end: "7h",
			want: reports.Fail, message: []string{"more than 6h0m0s after it (the reaction bound 1m0s included)"}, evidence: []string{"6m", "6h7m1s"}},
		{name: "never retried: the operator gave up",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "7h",
			want: reports.Fail, message: []string{"was not retried within 6h0m0s (by +6h6m0s with the reaction bound 0s), nor before the end of the run at +7h0m0s"}, evidence: []string{"6m"}},
		{name: "library-go: retried after 10m",
			tl: retried("16m"), cfg: libraryGo(), end: "2h",
			want: reports.Fail, message: []string{"sooner than 20m0s"}, evidence: []string{"6m", "16m"}},
		{name: "library-go: not retried within 2h",
			tl: retried("2h7m"), cfg: libraryGo(), end: "3h",
			want: reports.Fail, message: []string{"more than 2h0m0s after it"}, evidence: []string{"6m", "2h7m"}},
		{name: "a new revision came too late to excuse the retry",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install("6h10m", 3), end: "7h",
			want: reports.Fail, message: []string{"nor before the operator asked for revision 3 at +6h10m0s"}, evidence: []string{"6m"}},
		{name: "a new revision before the retry was due",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).install("20m", 3), end: "2h",
			want: reports.Skip, message: []string{"not due before the operator asked for revision 3 at +20m0s"}},
		{name: "the run ends before the retry is due",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "2h", want: reports.Skip},
		{name: "the operator was down",
			tl: failing().process("0s", RoleOperator, timeline.VerbStart).process("5m", RoleOperator, timeline.VerbKill).
				fallback("6m", 2, 1, reasonNotReady, notReadyMsg),
			end: "7h", want: reports.Skip, message: []string{"the operator was down"}},
		{name: "no retry after a crash loop", tl: crashLoop(), end: "2h", want: reports.Skip},

		// The operator's ask is judged, not the installer's writes.
		{name: "asked in time, installed later (the installer's write time)",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m", 2).reinstall("16m20s", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "asked early, installed in time",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("15m", 2).reinstall("16m", 2), end: "2h",
			want: reports.Fail, message: []string{"was retried at +15m0s"}, evidence: []string{"6m", "15m"}},
		{name: "asked in time while the installer was down",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("10m", RoleInstaller, timeline.VerbKill).
				ask("16m", 2).process("20m", RoleInstaller, timeline.VerbStart).reinstall("20m", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "the installer finishing an old ask is no retry: the clock starts again at its fallback",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg).install("23m", 2), end: "2h",
			want: reports.Pass, message: []string{"1 judged", "not due before the next fallback on the node at +13m0s"}},
		{name: "retried 10m after the first fallback, ignoring the second",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				reinstall("8m", 2).started("8m").hookStuck("8m").mirror("8m", 2, false).
				fallback("13m", 2, 1, reasonNotReady, notReadyMsg).install("16m", 2), end: "2h",
			want: reports.Fail, message: []string{"fallen back from at +13m0s with reason NotReady, was retried at +16m0s, 3m0s after it"}, evidence: []string{"13m", "16m"}},
		// A restarted operator keeps its back-off.
		{name: "an operator restarted between two retries keeps the ladder",
			tl: twice().process("0s", RoleOperator, timeline.VerbStart).process("22m", RoleOperator, timeline.VerbKill).
				process("23m", RoleOperator, timeline.VerbStart).install("41m", 2), end: "2h",
			want: reports.Pass, message: []string{"2 judged"}},
		{name: "an operator down past a retry's due time: its late retry is no wait to grow from",
			tl: failing().process("0s", RoleOperator, timeline.VerbStart).fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				process("7m", RoleOperator, timeline.VerbKill).process("7h", RoleOperator, timeline.VerbStart).
				install("7h", 2).started("7h").hookStuck("7h").mirror("7h", 2, false).
				fallback("7h5m", 2, 1, reasonNotReady, notReadyMsg).install("7h25m", 2), end: "8h",
			want: reports.Pass, message: []string{"1 judged", "the operator was down before its late retry"}},
		{name: "an operator restarted between two retries that starts the ladder again",
			tl: twice().process("0s", RoleOperator, timeline.VerbStart).process("22m", RoleOperator, timeline.VerbKill).
				process("23m", RoleOperator, timeline.VerbStart).install("28m", 2), end: "2h",
			want: reports.Fail, message: []string{"was retried at +28m0s, 7m0s after it: sooner than 10m0s"}, evidence: []string{"21m", "28m"}},
		{name: "no asks on the timeline: not judged",
			tl: newTimeline().running("0s", 1).reinstall("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
				fallback("6m", 2, 1, reasonNotReady, notReadyMsg).reinstall("12m", 2), end: "2h",
			want: reports.Skip, message: []string{"records none of the operator's asks"}},
	})
}

// STATICPOD-007 reports the waits it measured against the longest it allows.
func TestSTATICPOD007Measures(t *testing.T) {
	v := verdictOf(t, "STATICPOD-007", ruleCase{tl: twice().install("51m", 2), end: "2h", cfg: bound()})
	if len(v.Measures) != 1 {
		t.Fatalf("measures %v, want one", v.Measures)
	}
	m := v.Measures[0]
	if m.Count != 2 || m.P50 != d("10m") || m.Max != d("30m") || m.Budget != d("6h1m") {
		t.Errorf("measure %+v, want 2 waits, p50 10m, max 30m, budget 6h1m", m)
	}
}

// 003 §Retries, §User Stories 2 and 3: Degraded with the fallback message
// while the fallback lasts; library-go's condition while the mirror pod
// carries the annotations.
func TestSTATICPOD008Degraded(t *testing.T) { runTable(t, "STATICPOD-008", degradedCases()) }

func degradedCases() []ruleCase {
	return []ruleCase{
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
		{name: "faithful: set a minute late, within the default reaction bound",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("7m", "True", notReadyMsg), cfg: bound(), end: "1h", want: reports.Pass},
		{name: "faithful: never cleared once the retry is ready (STATICPOD-015's Style question)",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2), end: "1h", want: reports.Pass},
		{name: "set later than the reaction bound",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("7m1s", "True", notReadyMsg), cfg: bound(), end: "1h",
			want: reports.Fail, message: []string{"not Degraded=True at +7m0s, the reaction bound 1m0s after"}, evidence: []string{"0s", "6m"}},
		{name: "without the fallback message",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", "revision 2 failed"), end: "1h",
			want: reports.Fail, message: []string{`message "revision 2 failed" at +6m0s does not carry the fallback message`}, evidence: []string{"6m"}},
		{name: "cleared while retrying",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).mirror("16m", 2, false).condition("16m", "False", ""), end: "1h",
			want: reports.Fail, message: []string{"Degraded set to False at +16m0s, but the fallback (master-0 fell back from revision 2 at +6m0s) was not over"},
			evidence: []string{"6m", "16m"}},
		{name: "library-go: the seed's Degraded is not its condition",
			tl: stuckHook(), cfg: libraryGo(), end: "1h",
			want: reports.Fail, message: []string{"not StaticPodFallbackRevisionDegraded=True at +6m0s"}, evidence: []string{"6m"}},
		{name: "the run ends with the fallback",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "5m59s", want: reports.Skip},
		{name: "the operator was down",
			tl: failing().process("5m", RoleOperator, timeline.VerbKill).fallback("6m", 2, 1, reasonNotReady, notReadyMsg), end: "1h",
			want: reports.Skip, message: []string{"the operator was down"}},
		{name: "its calls failed until +7m: owed by the bound after",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("6m", RoleOperator, timeline.VerbFault).
				process("7m", RoleOperator, timeline.VerbClear).condition("7m30s", "True", notReadyMsg), cfg: bound(), end: "1h",
			want: reports.Pass, message: []string{"1 judged"}},
		{name: "its calls failed until +7m, set later than the bound after the retry (as long after the clear as they failed)",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("6m", RoleOperator, timeline.VerbFault).
				process("7m", RoleOperator, timeline.VerbClear).condition("9m1s", "True", notReadyMsg), cfg: bound(), end: "1h",
			want: reports.Fail, message: []string{"not Degraded=True at +9m0s"}, evidence: []string{"0s", "6m"}},
		{name: "no fallback", tl: rollout(), end: "1h", want: reports.Skip},
	}
}

// STATICPOD-008 reports how long after the mirror pod showed a fallback
// the condition told of it.
func TestSTATICPOD008Measures(t *testing.T) {
	v := verdictOf(t, "STATICPOD-008", ruleCase{tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m40s", "True", notReadyMsg), end: "1h", cfg: bound()})
	if v.Status != reports.Pass || len(v.Measures) != 1 || v.Measures[0].Max != d("40s") || v.Measures[0].Budget != d("1m") {
		t.Errorf("verdict %s %s, measures %+v: want a pass, the reaction 40s of 1m", v.Status, v.Message, v.Measures)
	}
}

// 003 §Retries: Degraded "while retries are attempted"; when it clears is
// not said, so a Degraded that outlives the fallback is a warning.
func TestSTATICPOD015DegradedCleared(t *testing.T) {
	runTable(t, "STATICPOD-015", clearedCases())
	if r := ruleByID(t, DefaultConfig(), "STATICPOD-015"); !r.Style {
		t.Error("STATICPOD-015 is a Style rule: the seed never says when Degraded clears")
	}
}

func clearedCases() []ruleCase {
	return []ruleCase{
		{name: "reference: cleared when the retry is ready", tl: stuckHook(), end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "faithful: cleared within the reaction bound",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2).condition("17m30s", "False", ""), cfg: bound(), end: "1h", want: reports.Pass},
		{name: "not cleared once the retry is ready",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2), end: "1h",
			want: reports.Fail, message: []string{"Degraded was True at +16m30s, but the fallback", "was over at +16m30s"},
			evidence: []string{"6m", "16m30s"}},
		{name: "two nodes: cleared only when both are over",
			tl: failing().on("master-1").running("0s", 1).install("1m", 2).started("1m").hookStuck("1m").mirror("1m", 2, false).
				on("master-0").fallback("6m", 2, 1, reasonNotReady, notReadyMsg).
				on("master-1").fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				on("master-0").install("16m", 2).ready("16m30s", 2).
				on("master-1").install("16m", 2).ready("17m", 2).condition("17m", "False", ""),
			end: "1h", want: reports.Pass, message: []string{"1 judged"}},
		{name: "the run ends before the condition clears",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				install("16m", 2).ready("16m30s", 2), cfg: tolerance("1m"), end: "17m",
			want: reports.Skip, message: []string{"the run ended before the condition was due to clear"}},
		{name: "the operator was down when the fallback was over",
			tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).condition("6m", "True", notReadyMsg).
				process("10m", RoleOperator, timeline.VerbKill).install("16m", 2).ready("16m30s", 2), end: "1h",
			want: reports.Skip, message: []string{"the operator was down when the fallback was over"}},
		{name: "a crash loop is never over", tl: crashLoop(), end: "1h", want: reports.Skip},
	}
}

// A recording of the API server holds a run's mirror pod and
// ClusterOperator writes only: on it STATICPOD-008 and 015 judge the
// fallbacks the mirror pods show (shown.go), and give every case of their
// tables the played run's status, but those whose story is a process,
// which a recording cannot show.
func TestRecordedFallbacksJudgeAsPlayed(t *testing.T) {
	judged := 0
	for id, cases := range map[string][]ruleCase{"STATICPOD-008": degradedCases(), "STATICPOD-015": clearedCases()} {
		for _, tc := range cases {
			if slices.ContainsFunc(tc.tl.events, func(e timeline.Event) bool { return e.Object.Kind == timeline.KindProcess }) {
				continue
			}
			rec := tc
			rec.tl = &builder{}
			for _, e := range tc.tl.events {
				if e.Object.Kind == "Pod" || e.Object.Kind == "ClusterOperator" {
					rec.tl.events = append(rec.tl.events, e)
				}
			}
			judged++
			if played, got := verdictOf(t, id, tc), verdictOf(t, id, rec); got.Status != played.Status {
				t.Errorf("%s %s: recorded %s %q, played %s %q", id, tc.name, got.Status, got.Message, played.Status, played.Message)
			}
		}
	}
	if judged < 20 {
		t.Errorf("%d cases recorded, want the tables' but a few", judged)
	}
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
