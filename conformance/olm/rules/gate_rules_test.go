package rules

import (
	"testing"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// oc is actor writing the OperatorCondition: its spec, generation and
// status.conditions (nil leaves one as it was).
func (b *builder) oc(off, actor string, spec *opCondSpec, generation int, status []ocCondition) *builder {
	verb := timeline.VerbUpdate
	if _, ok := b.fields[theOC]; !ok {
		verb = timeline.VerbCreate
	}
	fields := map[string]any{fieldGeneration: generation}
	if spec != nil {
		fields[fieldSpec] = spec
	}
	if status != nil {
		verb = timeline.VerbUpdateStatus
		fields[fieldConditions] = status
	}
	return b.write(off, actor, verb, theOC, fields, nil)
}

func upgradeableOC(status string, generation int64) []ocCondition {
	return []ocCondition{{Type: condUpgradeable, Status: status, Reason: "AsExpected", ObservedGeneration: generation}}
}

func TestGateDecides(t *testing.T) {
	// ocWorld is an OperatorCondition that allows, then what happens to
	// it at +1m, then the Upgrade asked at +2m.
	ocWorld := func(then func(b *builder) *builder) *builder {
		b := newTimeline().process("0s", actorGate, timeline.VerbStart).
			oc("0s", "operator", &opCondSpec{}, 1, nil).
			oc("0s", actorCopier, nil, 1, upgradeableOC(statusTrue, 1))
		return then(b).upgrade("2m", gateOperatorCondition)
	}
	same := func(b *builder) *builder { return b }
	override := func(status string) func(b *builder) *builder {
		return func(b *builder) *builder {
			return b.oc("1m", "admin", &opCondSpec{Overrides: []ocCondition{{Type: condUpgradeable, Status: status, Reason: "Admin"}}}, 2, nil)
		}
	}
	copiedAs := func(status string) func(b *builder) *builder {
		return func(b *builder) *builder { return b.oc("1m", actorCopier, nil, 1, upgradeableOC(status, 1)) }
	}
	stale := func(b *builder) *builder {
		return b.oc("1m", "operator", &opCondSpec{Conditions: upgradeableOC(statusTrue, 0)}, 2, nil)
	}
	runTable(t, "OLM-006", []ruleCase{
		{name: "the seed's example", tl: seedExample(), want: reports.Pass, message: []string{"judged"}},
		{name: "Succeeded while blocked",
			tl:   installed().seedFoo("1m", statusTrue).probeStatus("1m", actorAggregator, nil, notUpgradeable()).upgrade("2m", gateProbe).succeeded("2m"),
			want: reports.Fail, message: []string{"+2m0s: Succeeded while Probe/operators/foo-operator.v1.0.0 has Upgradeable=False"}, evidence: []string{"2m"}},
		{name: "Pending after the unblock",
			tl: installed().seedFoo("1m", statusTrue).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable()).
				upgrade("2m", gateProbe).pending("2m", seedMessage).
				seedFoo("5m", statusFalse).probeStatus("5m", actorAggregator, nil, upgradeable()),
			want: reports.Fail, message: []string{"is Pending/ProbeNotUpgradeable, not Succeeded, though Probe/operators/foo-operator.v1.0.0 has no Upgradeable=False", "at +5m0s"},
			evidence: []string{"5m", "2m"}},
		{name: "a blocked status in its own words: the seed gives no message",
			tl: installed().seedFoo("1m", statusTrue).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable()).
				upgrade("2m", gateProbe).decide("2m", phasePending, "Blocked", "Upgrade blocked"),
			want: reports.Pass},
		{name: "a blocked Upgrade left without a phase",
			tl: installed().seedFoo("1m", statusTrue).
				probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating")}, notUpgradeable()).
				upgrade("2m", gateProbe),
			want: reports.Fail, message: []string{"is without a phase, want Pending"}, evidence: []string{"2m"}},
		{name: "the gate judged on the Probe, not the CRs: a broken aggregator is not the gate's fault",
			tl:   installed().seedFoo("1m", statusTrue).upgrade("2m", gateProbe).succeeded("2m"),
			want: reports.Pass},
		{name: "no decision while the input allows",
			tl:   installed().upgrade("2m", gateProbe),
			want: reports.Fail, message: []string{"is without a phase, not Succeeded"}, evidence: []string{"2m"}},
		{name: "Succeeded is final",
			tl:   seedExample().decide("10m", phasePending, "ProbeNotUpgradeable", "again"),
			want: reports.Fail, message: []string{"Succeeded is final"}},
		{name: "the gate down: not judged",
			tl:   installed().process("1m", actorGate, timeline.VerbKill).upgrade("2m", gateProbe),
			want: reports.Skip, message: []string{"not judged: olm down from +2m0s"}},
		{name: "operatorcondition: Upgradeable True allows",
			tl: ocWorld(same).succeeded("2m"), want: reports.Pass},
		{name: "operatorcondition: none allows",
			tl:   newTimeline().upgrade("2m", gateOperatorCondition).succeeded("2m"),
			want: reports.Pass},
		{name: "operatorcondition: the override ignored",
			tl:   ocWorld(override(statusFalse)).succeeded("2m"),
			want: reports.Fail, message: []string{"Succeeded while OperatorCondition/operators/foo-operator.v1.0.0 overrides Upgradeable with False"}, evidence: []string{"2m"}},
		{name: "operatorcondition: the override blocks",
			tl:   ocWorld(override(statusFalse)).decide("2m", phasePending, reasonOCNotUpgradeable, "overridden"),
			want: reports.Pass},
		{name: "operatorcondition: the override allows a False condition",
			tl:   ocWorld(func(b *builder) *builder { return copiedAs(statusFalse)(override(statusTrue)(b)) }).succeeded("2m"),
			want: reports.Pass},
		{name: "operatorcondition: a stale observedGeneration ignored",
			tl:   ocWorld(stale).succeeded("2m"),
			want: reports.Fail, message: []string{"Upgradeable is outdated (observedGeneration 1, generation 2)"}},
		{name: "operatorcondition: a stale observedGeneration blocks",
			tl:   ocWorld(stale).decide("2m", phasePending, reasonOCNotUpgradeable, "outdated"),
			want: reports.Pass},
		{name: "operatorcondition: False blocks; Unknown allows",
			tl: ocWorld(copiedAs(statusFalse)).decide("2m", phasePending, reasonOCNotUpgradeable, "not upgradeable").
				oc("5m", actorCopier, nil, 1, upgradeableOC(statusUnknown, 1)).succeeded("5m"),
			want: reports.Pass},
		{name: "operatorcondition: Pending with the probe gate's reason",
			tl:   ocWorld(copiedAs(statusFalse)).decide("2m", phasePending, "ProbeNotUpgradeable", "not upgradeable"),
			want: reports.Fail, message: []string{"is Pending/ProbeNotUpgradeable, want Pending/OperatorConditionNotUpgradeable"}},
		{name: "in real time, a decision on input a moment old",
			tl: installed().seedFoo("1m", statusTrue).upgrade("2m", gateProbe).
				probeStatus("2m1s", actorAggregator, nil, notUpgradeable()).succeeded("2m2s").
				seedFoo("3m", statusFalse).probeStatus("3m", actorAggregator, nil, upgradeable()),
			cfg: &Config{Tolerance: 5e9}, want: reports.Pass},
	})
}

func TestConditionsCopied(t *testing.T) {
	spec2 := &opCondSpec{Conditions: []ocCondition{{Type: condUpgradeable, Status: statusFalse, Reason: "Migrating", Message: "Migrating the schema"}}}
	copied := func(generation int64) []ocCondition {
		return []ocCondition{{Type: condUpgradeable, Status: statusFalse, Reason: "Migrating", Message: "Migrating the schema", ObservedGeneration: generation}}
	}
	base := func() *builder {
		return newTimeline().process("0s", actorCopier, timeline.VerbStart).oc("0s", "operator", &opCondSpec{}, 1, nil)
	}
	runTable(t, "OLM-008", []ruleCase{
		{name: "no OperatorCondition", tl: seedExample(), want: reports.Skip},
		{name: "copied", tl: base().oc("1m", "operator", spec2, 2, nil).oc("1m", actorCopier, nil, 2, copied(2)), want: reports.Pass, message: []string{"2 judged"}},
		{name: "not copied",
			tl:   base().oc("1m", "operator", spec2, 2, nil),
			want: reports.Fail, message: []string{"spec condition Upgradeable is not in status"}, evidence: []string{"1m"}},
		{name: "a stale observedGeneration",
			tl:   base().oc("1m", "operator", spec2, 2, nil).oc("1m", actorCopier, nil, 2, copied(1)),
			want: reports.Fail, message: []string{`status condition Upgradeable is False/Migrating "Migrating the schema" observedGeneration 1, want False/Migrating "Migrating the schema" observedGeneration 2`},
			evidence: []string{"1m", "1m"}},
		{name: "a condition left in status",
			tl:   base().oc("1m", actorCopier, nil, 1, copied(1)),
			want: reports.Fail, message: []string{"status condition Upgradeable is not in spec"}},
		{name: "the copier down: not judged",
			tl:   base().process("40s", actorCopier, timeline.VerbKill).oc("1m", "operator", spec2, 2, nil),
			want: reports.Pass, message: []string{"1 judged", "not judged (olm-conditions down from +1m0s)"}},
		{name: "the copier back",
			tl: base().process("30s", actorCopier, timeline.VerbKill).oc("1m", "operator", spec2, 2, nil).
				process("4m", actorCopier, timeline.VerbStart).oc("4m", actorCopier, nil, 2, copied(2)),
			want: reports.Pass},
	})
}
