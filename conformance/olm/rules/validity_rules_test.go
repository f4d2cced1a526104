package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func TestValidConditions(t *testing.T) {
	// stamped is a status write that records status.conditions with
	// Upgradeable's observedGeneration.
	stamped := func(b *builder, off string, observed int64) *builder {
		return b.write(off, actorAggregator, timeline.VerbUpdateStatus, theProbe,
			map[string]any{fieldConditions: []ocCondition{{Type: condUpgradeable, Status: statusFalse, Reason: reasonNotUpgradeable, ObservedGeneration: observed}}},
			[]cond{notUpgradeable()})
	}
	runTable(t, "OLM-007", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass, message: []string{"4 judged"}},
		{name: "lastTransitionTime moved without a status change",
			tl:   installed().probeStatus("3m", actorAggregator, nil, upgradeable().at("3m"), valid()),
			want: reports.Fail, message: []string{"+3m0s: condition Upgradeable moved lastTransitionTime from 00:00:00 to 00:03:00 while its status stayed True"},
			evidence: []string{"3m"}},
		{name: "a status change that keeps lastTransitionTime",
			tl:   installed().probeStatus("3m", actorAggregator, nil, notUpgradeable().at("0s"), valid()),
			want: reports.Fail, message: []string{"went from True to False without moving lastTransitionTime"}},
		{name: "a message changed, lastTransitionTime kept",
			tl:   installed().probeStatus("3m", actorAggregator, nil, upgradeable().because("Upgradeable", "Still upgradeable"), valid()),
			want: reports.Pass},
		{name: "no reason",
			tl:   installed().probeStatus("3m", actorAggregator, nil, c(condUpgradeable, statusFalse).because("", "")),
			want: reports.Fail, message: []string{"has no reason"}},
		{name: "a reason that is not CamelCase",
			tl:   installed().probeStatus("3m", actorAggregator, nil, c(condUpgradeable, statusFalse).because("not upgradeable", "")),
			want: reports.Fail, message: []string{`has reason "not upgradeable", not CamelCase`}},
		{name: "a status that is none of the three",
			tl:   installed().probeStatus("3m", actorAggregator, nil, c(condUpgradeable, "false")),
			want: reports.Fail, message: []string{`has status "false"`}},
		{name: "a type that is not CamelCase",
			tl:   installed().probeStatus("3m", actorAggregator, nil, upgradeable(), valid(), c("probe-valid", statusTrue)),
			want: reports.Fail, message: []string{"condition probe-valid has a type"}},
		{name: "observedGeneration the Probe's generation",
			tl: stamped(installed(), "3m", 1), want: reports.Pass},
		{name: "observedGeneration left out: the seed says \"If set\"",
			tl: stamped(installed(), "3m", 0), want: reports.Pass},
		{name: "observedGeneration behind the Probe's generation: set upon an earlier one",
			tl:   stamped(installed().probeSpec("2m", actorAggregator, spec(seedResource(), probeResource{Resource: "bars.example.com"})), "3m", 1),
			want: reports.Pass},
		{name: "observedGeneration ahead of the Probe's generation",
			tl:   stamped(installed(), "3m", 7),
			want: reports.Fail, message: []string{"observedGeneration 7, a generation the Probe has not had (it is at 1)"}, evidence: []string{"3m"}},
		{name: "the operator's conditions on its own Probe are not the aggregator's",
			tl: newTimeline().probeSpec("0s", "operator", &probeSpec{Manager: managerOperator}).
				probeStatus("1m", "operator", nil, c(condUpgradeable, statusFalse).because("", "")),
			want: reports.Skip},
	})
}

func TestProbeNamed(t *testing.T) {
	elsewhere := timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: "operators", Name: "foo-operator"}
	runTable(t, "OLM-009", []ruleCase{
		{name: "the seed's example: the Probe of the CSV the upgrade moves from", tl: seedExample(), want: reports.Pass},
		{name: "no CSV named on the timeline", tl: installed(), want: reports.Skip, message: []string{"names no CSV"}},
		{name: "a misnamed Probe",
			tl: newTimeline().crd("0s", fooCRD, annotations("!Migrating", "")).
				write("0s", actorAggregator, timeline.VerbCreate, elsewhere, map[string]any{fieldSpec: spec(probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating"})}, nil).
				upgrade("1m", gateProbe),
			want: reports.Fail, message: []string{"Probe/operators/foo-operator at +0s", "not named after the operator's CSV in its namespace (operators/foo-operator.v1.0.0)"}, evidence: []string{"0s"}},
		{name: "the OperatorCondition names the CSV",
			tl:   installed().write("0s", "operator", timeline.VerbCreate, theOC, map[string]any{fieldSpec: opCondSpec{}}, nil),
			want: reports.Pass},
		{name: "the operator's own Probe elsewhere is not the aggregator's",
			tl:   installed().upgrade("1m", gateProbe).write("2m", "operator", timeline.VerbCreate, elsewhere, nil, nil),
			want: reports.Pass},
	})
}
