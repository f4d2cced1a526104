package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// operand is the world asking the operator of the seed's Foo for phase.
func (b *builder) operand(off, phase string) *builder {
	return b.write(off, "scenario", timeline.VerbUpdate, foo("default", "foo-example"),
		map[string]any{fieldAnnotations: map[string]string{operandAnnotation: phase}}, nil)
}

// migrating is the operator saying Migrating status on the seed's Foo.
func (b *builder) migrating(off, status string) *builder {
	return b.cr(off, foo("default", "foo-example"), c("Migrating", status).because("CriticalProcess", ""))
}

// operatorWorld is the seed's CRD ("!Migrating"), its Foo with no
// condition yet, and the operator started; then what happens, with the
// migration asked from 1m to 5m and an upgrade through gate at 2m.
func operatorWorld(gate string, then func(b *builder) *builder) *builder {
	b := installed().process("0s", actorOperator, timeline.VerbStart).
		write("0s", "scenario", timeline.VerbCreate, foo("default", "foo-example"), nil, nil).
		operand("1m", operandMigrating)
	return then(b).upgrade("2m", gate).operand("5m", "Idle")
}

func TestOperatorSays(t *testing.T) {
	managed := func(b *builder) *builder {
		return b.probeSpec("0s", "scenario", &probeSpec{Manager: managerOperator})
	}
	ocSays := func(status string) func(b *builder) *builder {
		return func(b *builder) *builder {
			return b.oc("0s", "scenario", &opCondSpec{}, 1, nil).
				oc("1m", "operator", &opCondSpec{Conditions: upgradeableOC(status, 0)}, 2, nil)
		}
	}
	runTable(t, "OLM-011", []ruleCase{
		{name: "the operator says Migrating on its CR at once", want: reports.Pass, message: []string{"judged"},
			tl: operatorWorld(gateProbe, func(b *builder) *builder { return b.migrating("1m", statusTrue) })},
		{name: "within the bound", want: reports.Pass,
			tl: operatorWorld(gateProbe, func(b *builder) *builder { return b.migrating("1m20s", statusTrue) })},
		{name: "the operator never writes", want: reports.Fail, evidence: []string{"1m"},
			message: []string{"Foo default/foo-example migrating", "nothing the probe gate reads", "+1m30s"},
			tl:      operatorWorld(gateProbe, func(b *builder) *builder { return b })},
		{name: "the operator says it is not migrating", want: reports.Fail, evidence: []string{"1m", "1m"},
			tl: operatorWorld(gateProbe, func(b *builder) *builder { return b.migrating("1m", statusFalse) })},
		{name: "later than the bound", want: reports.Fail,
			tl: operatorWorld(gateProbe, func(b *builder) *builder { return b.migrating("1m40s", statusTrue) })},
		{name: "its own Probe", want: reports.Pass,
			tl: operatorWorld(gateProbe, func(b *builder) *builder {
				return managed(b).probeStatus("1m", "operator", nil, c(condUpgradeable, statusFalse).because("FooProcess", ""))
			})},
		{name: "its CR while it manages its Probe: no gate reads it", want: reports.Fail,
			tl: operatorWorld(gateProbe, func(b *builder) *builder { return managed(b).migrating("1m", statusTrue) })},
		{name: "its OperatorCondition for the operatorcondition gate", want: reports.Pass,
			tl: operatorWorld(gateOperatorCondition, ocSays(statusFalse))},
		{name: "its OperatorCondition saying True", want: reports.Fail,
			tl: operatorWorld(gateOperatorCondition, ocSays(statusTrue))},
		{name: "its OperatorCondition for the probe gate", want: reports.Fail,
			tl: operatorWorld(gateProbe, ocSays(statusFalse))},
		{name: "its CR for the operatorcondition gate", want: reports.Fail,
			tl: operatorWorld(gateOperatorCondition, func(b *builder) *builder { return b.migrating("1m", statusTrue) })},
		{name: "down: owes nothing until it is back", want: reports.Pass,
			tl: operatorWorld(gateProbe, func(b *builder) *builder {
				return b.process("50s", actorOperator, timeline.VerbKill).process("3m", actorOperator, timeline.VerbStart).migrating("3m10s", statusTrue)
			})},
		{name: "no migration", want: reports.Skip,
			tl: installed().process("0s", actorOperator, timeline.VerbStart).migrating("1m", statusFalse)},
		{name: "a migration shorter than the bound", want: reports.Skip,
			tl: installed().write("0s", "scenario", timeline.VerbCreate, foo("default", "foo-example"), nil, nil).
				operand("1m", operandMigrating).operand("1m20s", "Idle")},
	})
}
