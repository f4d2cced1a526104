package rules

// Helpers for the OLM rule tests: a builder of synthetic timelines that
// follow the timeline contract (doc.go), the seed's example built with it,
// and one table runner shared by every rule.
//
// Offsets are Go duration strings ("6m") from timeline.Epoch, the way the
// rules print them ("+6m0s").

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func at(off string) time.Time {
	d, err := time.ParseDuration(off)
	if err != nil {
		panic(err)
	}
	return timeline.Epoch.Add(d)
}

// The objects of the tests.
var (
	fooCRD    = timeline.ObjectRef{Kind: kindCRD, Group: groupCRD, Name: "foos.example.com"}
	barCRD    = timeline.ObjectRef{Kind: kindCRD, Group: groupCRD, Name: "bars.example.com"}
	theProbe  = timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: "operators", Name: "foo-operator.v1.0.0"}
	theOC     = timeline.ObjectRef{Kind: kindOperatorCondition, Group: groupOperators, Namespace: "operators", Name: "foo-operator.v1.0.0"}
	upgradeV2 = timeline.ObjectRef{Kind: kindUpgrade, Group: groupOpcert, Namespace: "operators", Name: "foo-operator.v2.0.0"}
)

func foo(ns, name string) timeline.ObjectRef {
	return timeline.ObjectRef{Kind: "Foo", Group: "example.com", Namespace: ns, Name: name}
}

func bar(ns, name string) timeline.ObjectRef {
	return timeline.ObjectRef{Kind: "Bar", Group: "example.com", Namespace: ns, Name: name}
}

// cond is a condition as a write sets it. Its lastTransitionTime is the
// write's when its status changes (or it is added) and the one before
// otherwise, unless stamped says which.
type cond struct {
	typ, status, reason, message string
	stamped                      string
}

func c(typ, status string) cond { return cond{typ: typ, status: status, reason: "AsExpected"} }

func (x cond) because(reason, message string) cond { x.reason, x.message = reason, message; return x }

func (x cond) at(off string) cond { x.stamped = off; return x }

// builder records a synthetic timeline.
type builder struct {
	events []timeline.Event
	conds  map[timeline.ObjectRef][]timeline.Condition
	fields map[timeline.ObjectRef]map[string]json.RawMessage
}

func newTimeline() *builder {
	return &builder{conds: map[timeline.ObjectRef][]timeline.Condition{}, fields: map[timeline.ObjectRef]map[string]json.RawMessage{}}
}

// raw marshals a field's value; nil is the field absent.
func raw(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// write records a write of ref by actor (role the actor's name up to a
// '/', or "olm" for olm-conditions): fields the registered fields it sets
// (a nil value removes one), conds, when not nil, the object's whole list
// of conditions after it.
func (b *builder) write(off, actor, verb string, ref timeline.ObjectRef, fields map[string]any, conds []cond) *builder {
	role, _, _ := strings.Cut(actor, "/")
	if actor == actorCopier {
		role = RoleOLM
	}
	e := timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: actor, Role: role, Verb: verb, Object: ref}
	old := b.fields[ref]
	if old == nil || verb == timeline.VerbCreate {
		old = map[string]json.RawMessage{}
	}
	now := map[string]json.RawMessage{}
	for k, v := range old {
		now[k] = v
	}
	for k, v := range fields {
		if v == nil {
			delete(now, k)
		} else {
			now[k] = raw(v)
		}
	}
	if verb == timeline.VerbDelete {
		now = map[string]json.RawMessage{}
	}
	for _, p := range sortedKeys(old, now) {
		if !bytes.Equal(old[p], now[p]) {
			e.Fields = append(e.Fields, timeline.FieldChange{Path: p, Before: old[p], After: now[p]})
		}
	}
	b.fields[ref] = now
	before := b.conds[ref]
	after := before
	if conds != nil {
		after = nil
		for _, x := range conds {
			a := timeline.Condition{Type: x.typ, Status: x.status, Reason: x.reason, Message: x.message, LastTransitionTime: at(off)}
			for _, o := range before {
				if o.Type == x.typ && o.Status == x.status {
					a.LastTransitionTime = o.LastTransitionTime
				}
			}
			if x.stamped != "" {
				a.LastTransitionTime = at(x.stamped)
			}
			after = append(after, a)
		}
	}
	if verb == timeline.VerbDelete {
		after = nil
	}
	e.Conditions = timeline.Diff(before, after)
	b.conds[ref] = after
	b.events = append(b.events, e)
	return b
}

func sortedKeys(a, b map[string]json.RawMessage) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// annotations is a CRD's condition annotations: Upgradeable, Important
// ("" leaves one out).
func annotations(upgradeable, important string) map[string]string {
	m := map[string]string{}
	if upgradeable != "" {
		m[annotationPrefix+nameUpgradeable] = upgradeable
	}
	if important != "" {
		m[annotationPrefix+nameImportant] = important
	}
	return m
}

// crd writes a CRD (create the first time) with its annotations.
func (b *builder) crd(off string, ref timeline.ObjectRef, ann map[string]string) *builder {
	verb := timeline.VerbUpdate
	if _, ok := b.fields[ref]; !ok {
		verb = timeline.VerbCreate
	}
	plural, _, _ := strings.Cut(ref.Name, ".")
	var a any
	if len(ann) > 0 {
		a = ann
	}
	return b.write(off, "scenario", verb, ref, map[string]any{fieldAnnotations: a, fieldPlural: plural}, nil)
}

// cr is the operator writing a CR's conditions (creating it the first
// time), recorded as the diff and as status.conditions.
func (b *builder) cr(off string, ref timeline.ObjectRef, conds ...cond) *builder {
	verb := timeline.VerbUpdateStatus
	if _, ok := b.fields[ref]; !ok {
		verb = timeline.VerbCreate
	}
	list := []ocCondition{}
	for _, x := range conds {
		list = append(list, ocCondition{Type: x.typ, Status: x.status, Reason: x.reason})
	}
	return b.write(off, "operator", verb, ref, map[string]any{fieldConditions: list}, append([]cond{}, conds...))
}

// spec is a Probe's spec managed by crdAnnotations.
func spec(resources ...probeResource) *probeSpec {
	return &probeSpec{Manager: managerCRDAnnotations, ProbeResources: resources}
}

func seedResource() probeResource {
	return probeResource{Resource: "foos.example.com", Upgradeable: "!Migrating", Important: "BadConnectivity || UnhealthyDatabase"}
}

// probeSpecWrite is actor writing the Probe's spec (creating it the
// first time); a nil spec is written as null.
func (b *builder) probeSpec(off, actor string, s *probeSpec) *builder {
	verb := timeline.VerbUpdate
	if _, ok := b.fields[theProbe]; !ok {
		verb = timeline.VerbCreate
	}
	var v any = json.RawMessage("null")
	if s != nil {
		v = s
	}
	gen := 1
	if g, ok := b.fields[theProbe][fieldGeneration]; ok && verb != timeline.VerbCreate {
		if err := json.Unmarshal(g, &gen); err != nil {
			panic(err)
		}
		gen++
	}
	return b.write(off, actor, verb, theProbe, map[string]any{fieldSpec: v, fieldGeneration: gen}, nil)
}

// probeStatus is actor writing the Probe's status.
func (b *builder) probeStatus(off, actor string, resources []resourceStatus, conds ...cond) *builder {
	if resources == nil {
		resources = []resourceStatus{}
	}
	return b.write(off, actor, timeline.VerbUpdateStatus, theProbe, map[string]any{fieldProbeResources: resources}, conds)
}

func entry(kind, ns, name string, reasons ...string) resourceStatus {
	return resourceStatus{Kind: kind, Namespace: ns, Name: name, Reasons: reasons}
}

// The Probe's conditions as the aggregator writes them.
func upgradeable() cond {
	return c(condUpgradeable, statusTrue).because("Upgradeable", "No resource communicates that the operator is not upgradeable")
}

func notUpgradeable() cond {
	return c(condUpgradeable, statusFalse).because(reasonNotUpgradeable, messageNotUpgradeable)
}

func valid() cond {
	return c(condProbeValid, statusTrue).because("Valid", "Every condition annotation parses")
}

func invalid(message string) cond {
	return c(condProbeValid, statusFalse).because("InvalidExpression", message)
}

// process is a Process event of actor.
func (b *builder) process(off, actor, verb string) *builder {
	b.events = append(b.events, timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: actor, Role: "scenario", Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
	return b
}

// gap is a recording gap from one offset to another.
func (b *builder) gap(from, to string) *builder {
	rec := timeline.ObjectRef{Kind: timeline.KindRecording, Name: "Probe.operators.coreos.com"}
	b.events = append(b.events,
		timeline.Event{Seq: len(b.events) + 1, Time: at(from), Actor: "recorder", Verb: timeline.VerbLost, Object: rec, Detail: "410 Gone"},
		timeline.Event{Seq: len(b.events) + 2, Time: at(to), Actor: "recorder", Verb: timeline.VerbResumed, Object: rec})
	return b
}

// upgrade is the scenario asking for an upgrade to v2 through gate.
func (b *builder) upgrade(off, gate string) *builder {
	return b.write(off, "scenario", timeline.VerbCreate, upgradeV2,
		map[string]any{fieldSpec: upgradeSpec{From: "foo-operator.v1.0.0", To: "foo-operator.v2.0.0", Gate: gate}}, nil)
}

// decide is the gate writing the Upgrade's status.
func (b *builder) decide(off, phase, reason, message string) *builder {
	return b.write(off, actorGate, timeline.VerbUpdateStatus, upgradeV2,
		map[string]any{fieldStatus: upgradeStatus{Phase: phase, Reason: reason, Message: message}}, nil)
}

func (b *builder) pending(off, message string) *builder {
	return b.decide(off, phasePending, "ProbeNotUpgradeable", message)
}

func (b *builder) succeeded(off string) *builder {
	return b.decide(off, phaseSucceeded, "UpgradeAllowed", "Upgraded from foo-operator.v1.0.0 to foo-operator.v2.0.0")
}

// seedMessage is the gate's message for the seed's blocking CR.
const seedMessage = "Upgrade to foo-operator.v2.0.0 blocked by Probe foo-operator.v1.0.0: foos default/foo-example: !Migrating"

// seedFoo is the seed's Foo CR (002 §Example Workflow), Migrating as given.
func (b *builder) seedFoo(off, migrating string) *builder {
	return b.cr(off, foo("default", "foo-example"),
		c("Migrating", migrating).because("CriticalProcess", ""), c("UnhealthyDatabase", statusTrue).because("LivenessProbeFailure", ""),
		c("BadConnectivity", statusTrue).because("404", ""), c("SomethingUnrelated", statusTrue).because("Unmatched", ""))
}

// installed is the seed's CRD with its annotations and the Probe the
// aggregator makes of them, before any CR.
func installed() *builder {
	return newTimeline().process("0s", actorAggregator, timeline.VerbStart).process("0s", actorGate, timeline.VerbStart).
		crd("0s", fooCRD, annotations("!Migrating", "BadConnectivity || UnhealthyDatabase")).
		probeSpec("0s", actorAggregator, spec(seedResource())).
		probeStatus("0s", actorAggregator, nil, upgradeable(), valid())
}

// seedExample is 002 §Example Workflow: the Foo CR migrating blocks the
// upgrade, listed with its two Important conditions; once it stops
// migrating the upgrade goes through.
func seedExample() *builder {
	return installed().
		seedFoo("1m", statusTrue).
		probeStatus("1m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "!Migrating", "UnhealthyDatabase", "BadConnectivity")},
			notUpgradeable(), valid()).
		upgrade("2m", gateProbe).pending("2m", seedMessage).
		seedFoo("5m", statusFalse).
		probeStatus("5m", actorAggregator, []resourceStatus{entry("foos", "default", "foo-example", "UnhealthyDatabase", "BadConnectivity")},
			upgradeable(), valid()).
		succeeded("5m")
}

// newJudging is tl's judging, the timeline ending at +1h.
func newJudging(tl *builder) *judge.Judging { return judge.NewJudging(tl.events, at("1h")) }

// ruleCase is one row of a rule's table.
type ruleCase struct {
	name     string
	tl       *builder
	cfg      *Config // DefaultConfig when nil
	want     reports.Status
	message  []string // what the verdict's message must contain
	evidence []string // offsets of exactly the evidence events, in order, when given
}

// runTable judges every case with rule id on a timeline that ends at
// +1h, through judge.JudgeWith so that gaps excuse as in a run,
// and checks the verdict.
func runTable(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				cfg = *tc.cfg
			}
			var rule judge.Rule
			for _, r := range Rules(cfg) {
				if r.ID == id {
					rule = r
				}
			}
			if rule.Check == nil {
				t.Fatalf("no rule %s", id)
			}
			got := judge.JudgeWith([]judge.Rule{rule}, newJudging(tc.tl))[0]
			if got.Status != tc.want {
				t.Fatalf("status %s, want %s; message: %s", got.Status, tc.want, got.Message)
			}
			for _, m := range tc.message {
				if !strings.Contains(got.Message, m) {
					t.Errorf("message %q does not contain %q", got.Message, m)
				}
			}
			offs := []string{}
			for _, e := range got.Evidence {
				offs = append(offs, e.Time.Sub(timeline.Epoch).String())
			}
			want := []string{}
			for _, off := range tc.evidence {
				want = append(want, at(off).Sub(timeline.Epoch).String())
			}
			if tc.evidence != nil && !reflect.DeepEqual(offs, want) {
				t.Errorf("evidence at %v, want %v", offs, want)
			}
		})
	}
}
