package rules

// Helpers for the STALE rule tests: a tiny builder of synthetic timelines
// and one table runner shared by every rule's table.
//
// Offsets are written as Go duration strings ("10m2s") from timeline.Epoch, the
// way the rules print them ("+10m2s").

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// d parses an offset such as "10m2s".
func d(s string) time.Duration {
	v, err := time.ParseDuration(s)
	if err != nil {
		panic(err)
	}
	return v
}

// at is the virtual instant at offset s.
func at(s string) time.Time { return timeline.Epoch.Add(d(s)) }

func cond(typ, status, msg string, ltt time.Time) timeline.Condition {
	return timeline.Condition{Type: typ, Status: status, Reason: "AsExpected", Message: msg, LastTransitionTime: ltt}
}

// healthy are the four watched conditions of a healthy ClusterOperator.
func healthy(ltt time.Time) []timeline.Condition {
	return []timeline.Condition{
		cond("Available", "True", "All is well", ltt),
		cond("Degraded", "False", "No problems", ltt),
		cond("Progressing", "False", "Done", ltt),
		cond("Upgradeable", "True", "Safe to upgrade", ltt),
	}
}

// healthyFailing uses Degraded's older name, Failing (decision 001,
// conformance/clusteroperator/README.md).
func healthyFailing(ltt time.Time) []timeline.Condition {
	cs := healthy(ltt)
	cs[1].Type = "Failing"
	return cs
}

// edit changes a copy of a ClusterOperator's conditions.
type edit func([]timeline.Condition) []timeline.Condition

// each applies f to the conditions of the given types (every watched one
// when none is given).
func each(f func(*timeline.Condition), types ...string) edit {
	return func(cs []timeline.Condition) []timeline.Condition {
		for i := range cs {
			if len(types) == 0 && isWatched(cs[i].Type) || slices.Contains(types, cs[i].Type) {
				f(&cs[i])
			}
		}
		return cs
	}
}

// prefix writes the seed's challenge text before the messages.
func prefix(types ...string) edit {
	return each(func(c *timeline.Condition) { c.Message = challengePrefix + c.Message }, types...)
}

// unprefix removes it again: the operator's answer.
func unprefix(types ...string) edit {
	return each(func(c *timeline.Condition) { c.Message = strings.TrimPrefix(c.Message, challengePrefix) }, types...)
}

// prefixWith writes some other text before the messages.
func prefixWith(p string, types ...string) edit {
	return each(func(c *timeline.Condition) { c.Message = p + c.Message }, types...)
}

// message replaces the messages.
func message(msg string, types ...string) edit {
	return each(func(c *timeline.Condition) { c.Message = msg }, types...)
}

// status sets a status, moving the transition time to t.
func status(s string, t time.Time, types ...string) edit {
	return each(func(c *timeline.Condition) { c.Status, c.LastTransitionTime = s, t }, types...)
}

// reason replaces the reasons.
func reason(r string, types ...string) edit {
	return each(func(c *timeline.Condition) { c.Reason = r }, types...)
}

// staleMark is the reference's Unknown write: the seed's second text
// quoting the status and message from before the challenge.
func staleMark(after time.Duration, t time.Time, types ...string) edit {
	return each(func(c *timeline.Condition) {
		original := strings.TrimPrefix(c.Message, challengePrefix)
		c.Message = staleMessage(after, c.Status, original)
		if c.Status != "Unknown" {
			c.Status, c.LastTransitionTime = "Unknown", t
		}
	}, types...)
}

// upsert replaces or adds a condition.
func upsert(n timeline.Condition) edit {
	return func(cs []timeline.Condition) []timeline.Condition {
		for i := range cs {
			if cs[i].Type == n.Type {
				cs[i] = n
				return cs
			}
		}
		return append(cs, n)
	}
}

// builder records a synthetic timeline. Writes go to the ClusterOperator
// named by on (etcd unless changed); process events to its operator.
type builder struct {
	name   string
	state  map[string][]timeline.Condition
	prev   []timeline.Condition
	events []timeline.Event
}

func newTimeline() *builder {
	return &builder{name: "etcd", state: map[string][]timeline.Condition{}}
}

// on switches the ClusterOperator the next calls are about.
func (b *builder) on(name string) *builder { b.name = name; return b }

func (b *builder) add(e timeline.Event) {
	e.Seq = len(b.events) + 1
	b.events = append(b.events, e)
}

// write records a status write of the whole condition list.
func (b *builder) write(off, actor, role string, after []timeline.Condition) *builder {
	before, ok := b.state[b.name]
	verb := timeline.VerbUpdateStatus
	if !ok {
		verb = timeline.VerbCreate
	}
	b.add(timeline.Event{
		Time: at(off), Actor: actor, Role: role, Verb: verb,
		Object:     timeline.ObjectRef{Kind: clusterOperatorKind, Name: b.name},
		Conditions: timeline.Diff(before, after),
	})
	b.prev, b.state[b.name] = before, after
	return b
}

func (b *builder) edited(edits []edit) []timeline.Condition {
	cs := slices.Clone(b.state[b.name])
	for _, e := range edits {
		cs = e(cs)
	}
	return cs
}

// operatorWrites records the operator writing the whole condition list
// (its first write creates the ClusterOperator).
func (b *builder) operatorWrites(off string, conds []timeline.Condition) *builder {
	return b.write(off, OperatorActor(b.name), RoleOperator, conds)
}

// scenarioCreated has the scenario create the ClusterOperator healthy,
// status and all (a create step): no operator wrote it.
func (b *builder) scenarioCreated(off string) *builder {
	return b.write(off, "scenario", "scenario", healthy(at(off)))
}

// created creates the ClusterOperator healthy, transition times at off.
func (b *builder) created(off string) *builder { return b.operatorWrites(off, healthy(at(off))) }

// operator records a write by the ClusterOperator's operator.
func (b *builder) operator(off string, edits ...edit) *builder {
	return b.write(off, OperatorActor(b.name), RoleOperator, b.edited(edits))
}

// detector records a write by the detector.
func (b *builder) detector(off string, edits ...edit) *builder {
	return b.write(off, RoleDetector, RoleDetector, b.edited(edits))
}

// challenge is the reference's challenge: every watched message prefixed.
func (b *builder) challenge(off string) *builder { return b.detector(off, prefix()) }

// answer is the reference operator's answer: the messages written back.
func (b *builder) answer(off string) *builder { return b.operator(off, unprefix()) }

// mark is the reference's Unknown write after the default 10m + 10m.
func (b *builder) mark(off string) *builder { return b.detector(off, staleMark(d("20m"), at(off))) }

// failed turns the last write into a failed one: recorded, not applied.
func (b *builder) failed() *builder {
	b.events[len(b.events)-1].Failed = true
	b.state[b.name] = b.prev
	return b
}

func (b *builder) process(off, verb string) *builder {
	actor := OperatorActor(b.name)
	b.add(timeline.Event{Time: at(off), Actor: actor, Role: RoleOperator, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
	return b
}

func (b *builder) kill(off string) *builder      { return b.process(off, timeline.VerbKill) }
func (b *builder) start(off string) *builder     { return b.process(off, timeline.VerbStart) }
func (b *builder) hang(off string) *builder      { return b.process(off, timeline.VerbHang) }
func (b *builder) reconnect(off string) *builder { return b.process(off, timeline.VerbReconnect) }

// answering is the reference with a live operator: challenged at exactly
// +10m, answered 2s later, challenged again 10m after the answer.
func answering() *builder {
	return newTimeline().start("0s").created("0s").
		challenge("10m").answer("10m2s").challenge("20m2s").answer("20m4s")
}

// dying is the reference with a dead operator: killed at +5m, challenged
// at +10m, set Unknown at +20m.
func dying() *builder {
	return newTimeline().start("0s").created("0s").kill("5m").challenge("10m").mark("20m")
}

// ruleCase is one row of a rule's table.
type ruleCase struct {
	name      string
	tl        *builder
	end       string // the run's end, as an offset
	tolerance string // Config.Tolerance; empty is exact
	want      reports.Status
	co        string   // the ClusterOperator a failure must name; etcd if empty
	message   []string // what the verdict's message must also contain
	evidence  []string // offsets of exactly the ClusterOperator writes the evidence must hold
	measures  []reports.Measure
}

func ruleByID(t *testing.T, cfg Config, id string) judge.Rule {
	t.Helper()
	for _, r := range Rules(cfg) {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return judge.Rule{}
}

// runTable judges every case with rule id and checks the verdict.
func runTable(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.tolerance != "" {
				cfg.Tolerance = d(tc.tolerance)
			}
			v := ruleByID(t, cfg, id).Check(judge.NewJudging(tc.tl.events, at(tc.end)))
			checkVerdict(t, tc, v)
			// Judged as it streams, the same verdict.
			i := slices.IndexFunc(Rules(cfg), func(r judge.Rule) bool { return r.ID == id })
			sameVerdicts(t, "online", judgeOnline(cfg, tc.tl.events, at(tc.end))[i:i+1], []judge.Verdict{v})
		})
	}
}

func checkVerdict(t *testing.T, tc ruleCase, v judge.Verdict) {
	t.Helper()
	if v.Status != tc.want {
		t.Fatalf("status %s, want %s; message: %s", v.Status, tc.want, v.Message)
	}
	msgs := tc.message
	if tc.want == reports.Fail {
		co := tc.co
		if co == "" {
			co = "etcd"
		}
		msgs = append([]string{"ClusterOperator/" + co}, msgs...)
	}
	for _, m := range msgs {
		if !strings.Contains(v.Message, m) {
			t.Errorf("message %q does not contain %q", v.Message, m)
		}
	}
	if got, want := evidenceOffsets(v.Evidence), uniqueSorted(tc.evidence); !reflect.DeepEqual(got, want) {
		t.Errorf("evidence at %v, want %v", got, want)
	}
	for _, e := range v.Evidence {
		if e.Object.Kind != clusterOperatorKind || (tc.want == reports.Fail && !strings.Contains(v.Message, e.Object.Name)) {
			t.Errorf("evidence event %d is about %s, not a ClusterOperator the message names", e.Seq, e.Object)
		}
	}
	// A case that names no measures does not judge them (STALE-002's and
	// STALE-004's come with every judged deadline).
	if tc.measures != nil && !reflect.DeepEqual(v.Measures, tc.measures) {
		t.Errorf("measures\n got %+v\nwant %+v", v.Measures, tc.measures)
	}
}

// evidenceOffsets are the distinct instants of the evidence, sorted.
func evidenceOffsets(evs []timeline.Event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Time.Sub(timeline.Epoch).String())
	}
	return uniqueSorted(out)
}

func uniqueSorted(offs []string) []string {
	out := []string{}
	for _, o := range offs {
		out = append(out, d(o).String())
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(d(a), d(b)) })
	return slices.Compact(out)
}

// wantLateness is the measure STALE-002 (challengeLateness) or STALE-004
// (markLateness) should report.
func wantLateness(name string, count int, p50, p99, maxi string) []reports.Measure {
	return []reports.Measure{{Name: name, Count: count, P50: d(p50), P99: d(p99), Max: d(maxi), Budget: 30 * time.Second}}
}

// latencies is the measure STALE-007 should report for one ClusterOperator.
func wantLatencies(co string, count int, p50, p99, maxi string) reports.Measure {
	return reports.Measure{Name: "ClusterOperator/" + co, Count: count, P50: d(p50), P99: d(p99), Max: d(maxi), Budget: 30 * time.Second}
}

// detectorProcess records a process event of the detector.
func (b *builder) detectorProcess(off, verb string) *builder {
	b.add(timeline.Event{Time: at(off), Actor: RoleDetector, Role: RoleDetector, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: RoleDetector}})
	return b
}

func (b *builder) detectorStarts(off string) *builder {
	return b.detectorProcess(off, timeline.VerbStart)
}
func (b *builder) detectorDies(off string) *builder { return b.detectorProcess(off, timeline.VerbKill) }
func (b *builder) detectorHangs(off string) *builder {
	return b.detectorProcess(off, timeline.VerbHang)
}
func (b *builder) detectorBack(off string) *builder {
	return b.detectorProcess(off, timeline.VerbReconnect)
}

// fault and clear open and close an API fault on the operator's calls
// (scenario apiErrors); detectorFault and detectorClear on the detector's.
func (b *builder) fault(off string) *builder { return b.process(off, timeline.VerbFault) }
func (b *builder) clear(off string) *builder { return b.process(off, timeline.VerbClear) }
func (b *builder) detectorFault(off string) *builder {
	return b.detectorProcess(off, timeline.VerbFault)
}
func (b *builder) detectorClear(off string) *builder {
	return b.detectorProcess(off, timeline.VerbClear)
}
