package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestSpecFollows(t *testing.T) {
	changed := annotations("!Migrating && !Resizing", "BadConnectivity || UnhealthyDatabase")
	changedSpec := spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating && !Resizing", Important: "BadConnectivity || UnhealthyDatabase"})
	edited := spec(probeResource{Resource: "foos.example.com", Upgradeable: "Ready"})
	barResource := probeResource{Resource: "bars.example.com", Upgradeable: "Ready"}
	runTable(t, "OLM-003", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass},
		{name: "nothing annotated, no Probe", tl: newTimeline().crd("0s", fooCRD, nil), want: reports.Skip},
		{name: "no Probe created",
			tl:   newTimeline().crd("0s", fooCRD, annotations("!Migrating", "")),
			want: reports.Fail, message: []string{"no Probe, though CRD foos.example.com carries an Upgradeable or Important annotation"}, evidence: []string{"0s"}},
		{name: "the spec follows an annotation change",
			tl:   installed().crd("3m", fooCRD, changed).probeSpec("3m", actorAggregator, changedSpec),
			want: reports.Pass},
		{name: "the spec not following an annotation change",
			tl:   installed().crd("3m", fooCRD, changed),
			want: reports.Fail, message: []string{`spec.probeResources is [foos.example.com upgradeable "!Migrating" important "BadConnectivity || UnhealthyDatabase"], the annotations say [foos.example.com upgradeable "!Migrating && !Resizing"`},
			evidence: []string{"3m", "0s"}},
		{name: "an edit of the spec overridden",
			tl:   installed().probeSpec("3m", "scenario", edited).probeSpec("3m", actorAggregator, spec(seedResource())),
			want: reports.Pass},
		{name: "an edit of the spec kept",
			tl:   installed().probeSpec("3m", "scenario", edited),
			want: reports.Fail, evidence: []string{"3m", "0s"}},
		{name: "a second annotated CRD, in name order",
			tl:   installed().crd("3m", barCRD, annotations("Ready", "")).probeSpec("3m", actorAggregator, spec(barResource, seedResource())),
			want: reports.Pass},
		{name: "a second annotated CRD in another order: the seed gives none",
			tl:   installed().crd("3m", barCRD, annotations("Ready", "")).probeSpec("3m", actorAggregator, spec(seedResource(), barResource)),
			want: reports.Pass},
		{name: "a second annotated CRD listed twice",
			tl:   installed().crd("3m", barCRD, annotations("Ready", "")).probeSpec("3m", actorAggregator, spec(seedResource(), barResource, barResource)),
			want: reports.Fail, message: []string{"the annotations say"}},
		{name: "the second annotated CRD within the reaction bound",
			tl:   installed().crd("3m", barCRD, annotations("Ready", "")).probeSpec("3m20s", actorAggregator, spec(barResource, seedResource())),
			want: reports.Pass},
		{name: "the second annotated CRD later than the reaction bound",
			tl:   installed().crd("3m", barCRD, annotations("Ready", "")).probeSpec("3m40s", actorAggregator, spec(barResource, seedResource())),
			want: reports.Fail, message: []string{"at +3m30s, after the change at +3m0s"}},
		{name: "an unsupported name alone lists nothing",
			tl:   installed().crd("3m", barCRD, map[string]string{annotationPrefix + "Available": "Ready"}),
			want: reports.Pass},
		{name: "an unsupported name alone makes no Probe",
			tl:   newTimeline().crd("0s", barCRD, map[string]string{annotationPrefix + "Available": "Ready"}),
			want: reports.Skip},
		{name: "every annotation removed: no probe resource, the Probe stays",
			tl:   installed().crd("3m", fooCRD, nil).probeSpec("3m", actorAggregator, spec()),
			want: reports.Pass},
		{name: "the aggregator down when the annotation changes, back and following",
			tl: installed().process("1m", actorAggregator, timeline.VerbKill).crd("3m", fooCRD, changed).
				process("6m", actorAggregator, timeline.VerbStart).probeSpec("6m", actorAggregator, changedSpec),
			want: reports.Pass},
		{name: "a Probe the operator manages is not held to the annotations",
			tl:   newTimeline().crd("0s", fooCRD, annotations("!Migrating", "")).probeSpec("0s", "operator", &probeSpec{Manager: managerOperator}),
			want: reports.Pass},
	})
}

func TestLeftAlone(t *testing.T) {
	byOperator := func() *builder {
		return newTimeline().probeSpec("0s", "operator", &probeSpec{Manager: managerOperator}).
			probeStatus("1m", "operator", nil, c(condUpgradeable, statusFalse).because("FooProcess", "The operator is not upgradeable because FooProcess is running"))
	}
	nilSpec := func() *builder { return newTimeline().probeSpec("0s", "operator", nil).seedFoo("1m", statusTrue) }
	runTable(t, "OLM-004", []ruleCase{
		{name: "the seed's example: nothing to judge", tl: seedExample(), want: reports.Skip},
		{name: "a Probe the operator manages, left alone", tl: byOperator(), want: reports.Pass, message: []string{"1 judged"}},
		{name: "a Probe the operator manages, written",
			tl:   byOperator().probeStatus("2m", actorAggregator, nil, c(condUpgradeable, statusTrue).because("Upgradeable", "")),
			want: reports.Fail, message: []string{"the aggregator wrote (update-status) a Probe whose spec.manager is operator"}, evidence: []string{"2m"}},
		{name: "a Probe with a nil spec, left alone", tl: nilSpec(), want: reports.Pass},
		{name: "a Probe with a nil spec, aggregated",
			tl:   nilSpec().probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable()),
			want: reports.Fail, message: []string{"+1m0s: the aggregator wrote the status of a Probe whose spec is nil"}, evidence: []string{"1m"}},
		{name: "a write inside a recording gap is not judged",
			tl:   nilSpec().gap("50s", "2m").probeStatus("1m", actorAggregator, nil, notUpgradeable()),
			want: reports.Skip, message: []string{"recording gap"}},
	})
}
