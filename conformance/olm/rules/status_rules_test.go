package rules

import (
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
			want: reports.Fail, message: []string{"Upgradeable is False/NotUpgradeable", "want True", "+1m0s"}, evidence: []string{"1m", "1m"}},
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
			want: reports.Fail, message: []string{"want False/NotUpgradeable", "foos other/foo-other: !Migrating blocks"}, evidence: []string{"1m", "1m"}},
		{name: "an expression that does not parse blocks nothing",
			tl: newTimeline().crd("0s", fooCRD, annotations("!Migrating &&", "")).
				probeSpec("0s", actorAggregator, spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating &&"})).
				probeStatus("0s", actorAggregator, nil, upgradeable(), invalid("foos.example.com: olm.operatorframework.io/condition.Upgradeable: column 14: expected a condition type")).
				cr("1m", foo("default", "foo-example"), c("Migrating", statusTrue)),
			want: reports.Pass},
		{name: "the aggregator down: nothing owed while it is",
			tl:   installed().process("30s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue),
			want: reports.Pass, message: []string{"1 judged", "not judged (aggregator down from +1m0s)"}},
		{name: "the aggregator back: owed at its start",
			tl: installed().process("30s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue).
				process("10m", actorAggregator, timeline.VerbStart).
				probeStatus("10m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")}, notUpgradeable(), valid()),
			want: reports.Pass},
		{name: "the aggregator back but silent",
			tl: installed().process("30s", actorAggregator, timeline.VerbKill).seedFoo("1m", statusTrue).
				process("10m", actorAggregator, timeline.VerbStart),
			want: reports.Fail, message: []string{"at +10m0s, after the change at +1m0s"}, evidence: []string{"1m", "0s"}},
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
			want: reports.Fail, message: []string{"status.probeResources is [foos default/foo-example (!Migrating, UnhealthyDatabase, BadConnectivity)], want [foos default/foo-example (UnhealthyDatabase, BadConnectivity)]"},
			evidence: []string{"5m", "5m"}},
		{name: "reasons out of order",
			tl:   listed(entry("foos", "default", "foo-example", "!Migrating", "BadConnectivity", "UnhealthyDatabase")),
			want: reports.Fail, evidence: []string{"1m", "1m"}},
		{name: "an unrelated condition listed",
			tl:   listed(entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity", "SomethingUnrelated")),
			want: reports.Fail, message: []string{"SomethingUnrelated"}},
		{name: "the kind is the CRD's plural",
			tl:   listed(entry("Foo", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")),
			want: reports.Fail, message: []string{"want [foos default/foo-example"}},
		{name: "probe resource order, then namespace and name",
			tl:   multi(entry("foos", "default", "f1", "!Migrating"), entry("foos", "other", "f2", "BadConnectivity"), entry("bars", "default", "b1", "Ready")),
			want: reports.Pass},
		{name: "sorted by name alone",
			tl:   multi(entry("bars", "default", "b1", "Ready"), entry("foos", "default", "f1", "!Migrating"), entry("foos", "other", "f2", "BadConnectivity")),
			want: reports.Fail},
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

func TestInvalidReported(t *testing.T) {
	key := annotationPrefix + nameImportant
	withImportant := func(important string, status cond) *builder {
		return newTimeline().crd("0s", fooCRD, annotations("!Migrating", important)).
			probeSpec("0s", actorAggregator, spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: important})).
			probeStatus("0s", actorAggregator, nil, upgradeable(), status)
	}
	runTable(t, "OLM-005", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass},
		{name: "an Important expression with && reported",
			tl:   withImportant("A && B", invalid("foos.example.com: "+key+": column 3: expected ||, found &&")),
			want: reports.Pass},
		{name: "an invalid annotation silent",
			tl:   withImportant("A && B", valid()),
			want: reports.Fail, message: []string{"ProbeValid is not False though foos.example.com " + key}, evidence: []string{"0s", "0s"}},
		{name: "a report that does not name the annotation",
			tl:   withImportant("A && B", invalid("foos.example.com: column 3: expected ||, found &&")),
			want: reports.Fail, message: []string{"does not name foos.example.com and " + key}},
		{name: "an unsupported condition name",
			tl: installed().crd("3m", fooCRD, map[string]string{annotationPrefix + nameUpgradeable: "!Migrating",
				annotationPrefix + nameImportant: "BadConnectivity || UnhealthyDatabase", annotationPrefix + "Available": "Ready"}),
			want: reports.Fail, message: []string{"OLM supports the conditions Upgradeable and Important"}, evidence: []string{"3m", "0s"}},
		{name: "valid annotations reported invalid",
			tl:   withImportant("A || B", invalid("foos.example.com: wrong")),
			want: reports.Fail, message: []string{"ProbeValid is False", "though every condition annotation parses"}},
		{name: "a Probe managed by the operator is not judged",
			tl:   newTimeline().crd("0s", fooCRD, annotations("!(", "")).probeSpec("0s", "operator", &probeSpec{Manager: managerOperator}),
			want: reports.Skip},
	})
}
