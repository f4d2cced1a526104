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
		{name: "observedGeneration behind the Probe's generation",
			tl:   stamped(installed().probeSpec("2m", actorAggregator, spec(seedResource(), probeResource{Resource: "bars.example.com"})), "3m", 1),
			want: reports.Fail, message: []string{"observedGeneration 1, the Probe's generation is 2"}, evidence: []string{"3m"}},
		{name: "the operator's conditions on its own Probe are not the aggregator's",
			tl: newTimeline().probeSpec("0s", "operator", &probeSpec{Manager: managerOperator}).
				probeStatus("1m", "operator", nil, c(condUpgradeable, statusFalse).because("", "")),
			want: reports.Skip},
	})
}
