package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// 003 §User Stories 4, §Retries: every ask of the operator is rolled out.
func TestSTATICPOD014AsksCarriedOut(t *testing.T) {
	asked := func() *builder { return failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m", 2) }
	runTable(t, "STATICPOD-014", []ruleCase{
		{name: "reference: the rollout and the retry installed at once", tl: stuckHook(), end: "1h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "faithful: installed 50s after the ask (write time, a resync)", tl: asked().reinstall("16m50s", 2), cfg: bound(), end: "1h", want: reports.Pass},
		{name: "installed after a lock the startup-monitor held, within the bound of its release",
			tl: asked().lock("15m", RoleStartupMonitor).unlock("17m", RoleStartupMonitor).reinstall("17m30s", 2), cfg: bound(), end: "1h", want: reports.Pass},
		{name: "an ask of the revision in place needs no write",
			tl: rollout().ask("20m", 2), end: "1h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "the installer down when asked owes it once back",
			tl:  failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).process("10m", RoleInstaller, timeline.VerbKill).ask("16m", 2),
			end: "1h", want: reports.Pass, message: []string{"1 judged", "installer/master-0 was down"}},
		{name: "a later ask replaces one not carried out",
			tl: asked().install("16m30s", 3), cfg: bound(), end: "1h", want: reports.Pass, message: []string{"2 judged"}},
		{name: "the run ends before it is due", tl: asked(), cfg: bound(), end: "16m30s", want: reports.Pass, message: []string{"not due before the end of the run"}},
		{name: "a retry asked and never installed",
			tl: asked(), end: "1h",
			want: reports.Fail, message: []string{"master-0: the operator asked for revision 2 at +16m0s; installer/master-0 had not written its manifest by +16m0s", "nor before the end of the run at +1h0m0s"},
			evidence: []string{"16m"}},
		{name: "a retry installed later than the bound",
			tl: asked().reinstall("17m1s", 2), cfg: bound(), end: "1h",
			want: reports.Fail, message: []string{"installer/master-0 wrote it at +17m1s, due by +17m0s (the reaction bound 1m0s)"}, evidence: []string{"16m", "17m1s"}},
		{name: "a write by the startup-monitor is no install",
			tl: asked().manifest("16m", RoleStartupMonitor, 2, ""), end: "1h",
			want: reports.Fail, message: []string{"had not written its manifest"}, evidence: []string{"16m"}},
		{name: "no asks on the timeline: not judged",
			tl: newTimeline().running("0s", 1).reinstall("1m", 2), end: "1h", want: reports.Skip, message: []string{"records none of the operator's asks"}},
	})
}

// STATICPOD-014 reports how long each ask took to be installed.
func TestSTATICPOD014Measures(t *testing.T) {
	v := verdictOf(t, "STATICPOD-014", ruleCase{tl: failing().fallback("6m", 2, 1, reasonNotReady, notReadyMsg).ask("16m", 2).reinstall("16m20s", 2), end: "1h", cfg: bound()})
	if v.Status != reports.Pass || len(v.Measures) != 1 || v.Measures[0].Count != 2 || v.Measures[0].Max != d("20s") || v.Measures[0].Budget != d("1m") {
		t.Errorf("verdict %s %s, measures %+v: want a pass, 2 installs, the slowest 20s of 1m", v.Status, v.Message, v.Measures)
	}
}
