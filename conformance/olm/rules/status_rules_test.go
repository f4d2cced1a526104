package rules

import (
	"reflect"
	"time"

	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestUpgradeableReflects(t *testing.T) {
	blocks := &Config{Reading: ReadingBlocks}
	realTime := &Config{Reading: ReadingHolds, Tolerance: 5e9}
	other := foo("other", "foo-other")
	runTable(t, "OLM-001", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass},
		{name: "no Probe", tl: newTimeline().crd("0s", fooCRD, nil), want: reports.Skip, message: []string{"no Probe"}},
		{name: "a Probe with a nil spec is not aggregated",
			tl:   newTimeline().probeSpec("0s", "operator", nil).seedFoo("1m", statusTrue),
			want: reports.Skip},
		{name: "Unknown treated as False",
			tl: installed().cr("1m", foo("default", "foo-example"), c("Migrating", statusUnknown)).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable(), valid()),
			want: reports.Fail, message: []string{"Upgradeable is False, want True", "+1m0s"}, evidence: []string{"1m", "1m"}},
		{name: "a missing condition is Unknown and blocks nothing",
			tl:   installed().cr("1m", foo("default", "foo-example"), c("Ready", statusTrue)),
			want: reports.Pass},
		{name: "the reading blocks: a True expression blocks",
			tl: installed().seedFoo("1m", statusFalse).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			cfg: blocks, want: reports.Pass},
		{name: "the seed's example under the reading blocks",
			tl: seedExample(), cfg: blocks, want: reports.Fail, message: []string{"want True", `under the reading "blocks"`}},
		{name: "a namespace ignored",
			tl: installed().seedFoo("1m", statusFalse).cr("1m", other, c("Migrating", statusTrue)).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "UnhealthyDatabase", "BadConnectivity")}, upgradeable(), valid()),
			want: reports.Fail, message: []string{"Upgradeable is True, want False", "foos other/foo-other: !Migrating blocks"}, evidence: []string{"1m", "1m"}},
		{name: "an expression that does not parse blocks nothing",
			tl: newTimeline().crd("0s", fooCRD, annotations("!Migrating &&", "")).
				probeSpec("0s", actorAggregator, spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating &&"})).
				probeStatus("0s", actorAggregator, nil, upgradeable(), invalid("foos.example.com: olm.operatorframework.io/condition.Upgradeable: column 14: expected a condition type")).
				cr("1m", foo("default", "foo-example"), c("Migrating", statusTrue)),
			want: reports.Pass},
		{name: "the aggregator down: nothing owed while it is",
			tl:   installed().process("40s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue),
			want: reports.Pass, message: []string{"1 judged", "not judged (aggregator down from +1m0s)"}},
		{name: "the aggregator back: owed at its start",
			tl: installed().process("30s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue).
				process("10m", actorAggregator, timeline.VerbStart).
				probeStatus("10m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			want: reports.Pass},
		{name: "the aggregator back but silent",
			tl: installed().process("40s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue).
				process("10m", actorAggregator, timeline.VerbStart),
			want: reports.Fail, message: []string{"at +10m30s, after the change at +1m0s"}, evidence: []string{"1m", "0s"}},
		{name: "a failure inside a recording gap is not judged",
			tl:   installed().gap("50s", "2m").seedFoo("1m", statusTrue),
			want: reports.Skip, message: []string{"recording gap from +50s to +2m0s"}},
		{name: "in real time, a reaction within the tolerance",
			tl: installed().seedFoo("1m", statusTrue).
				probeStatus("1m3s", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			cfg: realTime, want: reports.Pass},
		{name: "in real time, a reaction later than the tolerance",
			tl: installed().seedFoo("1m", statusTrue).
				probeStatus("1m10s", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			cfg: realTime, want: reports.Fail, message: []string{"at +1m5s"}, evidence: []string{"1m", "0s"}},
		{name: "in real time, an object no CRD serves is no change",
			tl: installed().seedFoo("1m", statusTrue).
				write("1m2s", "operator", timeline.VerbUpdate, timeline.ObjectRef{Kind: "Deployment", Group: "apps", Namespace: "operators", Name: "foo-operator"}, nil, nil).
				probeStatus("1m10s", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			cfg: realTime, want: reports.Fail, message: []string{"at +1m5s"}},
		{name: "in real time, a change undone within the tolerance is not judged",
			tl:  installed().seedFoo("1m", statusTrue).seedFoo("1m2s", statusFalse),
			cfg: realTime, want: reports.Pass, message: []string{"2 judged"}},
		{name: "a later write that breaks what was right",
			tl:   seedExample().probeStatus("7m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			want: reports.Fail, message: []string{"write at +7m0s, after the change at +5m0s"}, evidence: []string{"5m", "7m"}},
	})
}

func TestProbeResourcesListed(t *testing.T) {
	listed := func(l ...resourceStatus) *builder {
		return installed().seedFoo("1m", statusTrue).probeStatus("1m", actorAggregator, l, notUpgradeable(), valid())
	}
	twoKinds := spec(seedResource(), probeResource{Resource: "bars.example.com", Upgradeable: "Ready"})
	multi := func(l ...resourceStatus) *builder {
		return newTimeline().crd("0s", fooCRD, annotations("!Migrating", "BadConnectivity || UnhealthyDatabase")).
			crd("0s", barCRD, annotations("Ready", "")).
			probeSpec("0s", actorAggregator, twoKinds).
			cr("1m", bar("default", "b1"), c("Ready", statusFalse)).
			cr("1m", foo("other", "f2"), c("BadConnectivity", statusTrue)).
			cr("1m", foo("default", "f1"), c("Migrating", statusTrue), c("Ready", statusFalse)).
			probeStatus("1m", actorAggregator, l, notUpgradeable(), valid())
	}
	runTable(t, "OLM-002", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass, message: []string{"3 judged"}},
		{name: "stale reasons",
			tl: listed(entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")).seedFoo("5m", statusFalse).
				probeStatus("5m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, upgradeable(), valid()),
			want: reports.Fail, message: []string{"status.probeResources lists foos default/foo-example (!Migrating, UnhealthyDatabase, BadConnectivity) with the reason !Migrating, though it does not block"},
			evidence: []string{"5m", "5m"}},
		{name: "reasons in another order: the seed gives none",
			tl:   listed(entry("foos", "default", "foo-example", "BadConnectivity", "UnhealthyDatabase", "!Migrating")),
			want: reports.Pass},
		{name: "the blocking reason in other words: OLM-010's, not this rule's",
			tl:   listed(entry("foos", "default", "foo-example", "UnhealthyDatabase", "BadConnectivity", "Migrating")),
			want: reports.Pass},
		{name: "a blocking CR listed without a reason for blocking",
			tl:   listed(entry("foos", "default", "foo-example", "UnhealthyDatabase", "BadConnectivity")),
			want: reports.Fail, message: []string{`want one reason for failing "!Migrating"`}, evidence: []string{"1m", "1m"}},
		{name: "a True Important condition missing",
			tl:   listed(entry("foos", "default", "foo-example", "!Migrating", "BadConnectivity")),
			want: reports.Fail, message: []string{"without the True condition UnhealthyDatabase"}},
		{name: "a CR listed twice",
			tl: listed(entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity"),
				entry("Foo", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")),
			want: reports.Fail, message: []string{"lists Foo default/foo-example", "no reason to be listed"}},
		{name: "a blocking CR not listed",
			tl:   listed(),
			want: reports.Fail, message: []string{`does not list foos default/foo-example (it fails "!Migrating"; True: UnhealthyDatabase, BadConnectivity)`}},
		{name: "an unrelated condition listed",
			tl:   listed(entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity", "SomethingUnrelated")),
			want: reports.Fail, message: []string{"SomethingUnrelated"}},
		{name: "the kind the CR's kind, as an ObjectReference has it",
			tl:   listed(entry("Foo", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")),
			want: reports.Pass},
		{name: "the kind another CRD's",
			tl:   listed(entry("bars", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")),
			want: reports.Fail, message: []string{"does not list foos default/foo-example"}},
		{name: "probe resource order, then namespace and name",
			tl:   multi(entry("foos", "default", "f1", "!Migrating"), entry("foos", "other", "f2", "BadConnectivity"), entry("bars", "default", "b1", "Ready")),
			want: reports.Pass},
		{name: "sorted by name alone: the seed gives no order",
			tl:   multi(entry("bars", "default", "b1", "Ready"), entry("foos", "default", "f1", "!Migrating"), entry("foos", "other", "f2", "BadConnectivity")),
			want: reports.Pass},
		{name: "an Important expression with && is open: whatever is listed for it",
			tl: newTimeline().crd("0s", fooCRD, annotations("!Migrating", "BadConnectivity && UnhealthyDatabase")).
				probeSpec("0s", actorAggregator, spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity && UnhealthyDatabase"})).
				seedFoo("1m", statusTrue).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "BadConnectivity", "UnhealthyDatabase")}, notUpgradeable()),
			want: reports.Pass},
		{name: "an Important expression with && contributes nothing",
			tl: newTimeline().crd("0s", fooCRD, annotations("!Migrating", "BadConnectivity && UnhealthyDatabase")).
				probeSpec("0s", actorAggregator, spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity && UnhealthyDatabase"})).
				seedFoo("1m", statusTrue).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable(), invalid("")),
			want: reports.Pass},
		{name: "a CR deleted leaves the list",
			tl: seedExample().write("8m", "operator", timeline.VerbDelete, foo("default", "foo-example"), nil, nil).
				probeStatus("8m", actorAggregator, nil, upgradeable(), valid()),
			want: reports.Pass},
	})
}

func TestSeedSpellings(t *testing.T) {
	blocked := func(kind string, reasons []string, up cond) *builder {
		return installed().seedFoo("1m", statusTrue).probeStatus("1m", actorAggregator, []resourceStatus{entry(kind, "default", "foo-example", reasons...)}, up)
	}
	theirs := c(condUpgradeable, statusFalse).because("Blocked", "Foo default/foo-example is migrating")
	runTable(t, "OLM-010", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass},
		{name: "nothing blocks: nothing to judge", tl: installed(), want: reports.Skip},
		{name: "another reason and message for Upgradeable False",
			tl:   blocked("foos", []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}, theirs),
			want: reports.Warn, message: []string{`Upgradeable False is Blocked "Foo default/foo-example is migrating", the seed's example is NotUpgradeable`}},
		{name: "the CR's kind where the example has the plural",
			tl:   blocked("Foo", []string{"!Migrating", "UnhealthyDatabase", "BadConnectivity"}, notUpgradeable()),
			want: reports.Warn, message: []string{`the seed's example has kind foos and the reason "!Migrating"`}},
		{name: "the blocking reason in other words",
			tl:   blocked("foos", []string{"Migrating", "UnhealthyDatabase", "BadConnectivity"}, notUpgradeable()),
			want: reports.Warn, message: []string{`the reason "!Migrating"`}},
	})
}

// A reaction within the bound passes, later fails, and the verdict
// reports the reactions measured against the bound.
func TestUpgradeableReaction(t *testing.T) {
	blocked := []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}
	runTable(t, "OLM-001", []ruleCase{
		{name: "a requeue 20s later: within the bound",
			tl:   installed().seedFoo("1m", statusTrue).probeStatus("1m20s", actorAggregator, blocked, notUpgradeable()),
			want: reports.Pass},
		{name: "40s later: beyond the bound",
			tl:   installed().seedFoo("1m", statusTrue).probeStatus("1m40s", actorAggregator, blocked, notUpgradeable()),
			want: reports.Fail, message: []string{"Upgradeable is True, want False", "at +1m30s, after the change at +1m0s"}, evidence: []string{"1m", "0s"}},
		{name: "under a bound of 1m, 40s later passes",
			tl:  installed().seedFoo("1m", statusTrue).probeStatus("1m40s", actorAggregator, blocked, notUpgradeable()),
			cfg: &Config{Reading: ReadingHolds, Reaction: time.Minute}, want: reports.Pass},
	})
	tl := installed().seedFoo("1m", statusTrue).probeStatus("1m20s", actorAggregator, blocked, notUpgradeable())
	v := DefaultConfig().upgradeableReflects(newJudging(tl))
	want := []reports.Measure{{Name: "Probe/operators/foo-operator.v1.0.0 Upgradeable", Count: 2, P50: 0, P99: 20 * time.Second, Max: 20 * time.Second, Budget: 30 * time.Second}}
	if !reflect.DeepEqual(v.Measures, want) {
		t.Errorf("measures %+v, want %+v", v.Measures, want)
	}
}
