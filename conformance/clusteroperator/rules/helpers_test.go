package rules

// Helpers for the CO rule tests: a small builder of synthetic timelines
// that follow the timeline contract (doc.go), the seed's story built with
// it, and one table runner shared by every rule.
//
// Offsets are Go duration strings ("6m") from timeline.Epoch, the way the rules
// print them ("+6m0s").

import (
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

// cond is a condition as a write sets it. Its lastTransitionTime is the
// write's when its status changes (or it is added) and the one before
// otherwise, unless stamped says which.
type cond struct {
	typ, status, reason, message string
	stamped                      string
}

func c(typ, status, message string) cond {
	return cond{typ: typ, status: status, reason: "AsExpected", message: message}
}

// because sets the reason.
func (x cond) because(reason string) cond { x.reason = reason; return x }

// at stamps lastTransitionTime at off, whatever the status does.
func (x cond) at(off string) cond { x.stamped = off; return x }

// builder records a synthetic timeline of ClusterOperator writes.
type builder struct {
	events   []timeline.Event
	conds    map[string]map[string]timeline.Condition // object -> type -> as last written
	versions map[string]string                        // object -> the operator version last written
}

func newTimeline() *builder {
	return &builder{conds: map[string]map[string]timeline.Condition{}, versions: map[string]string{}}
}

// write is the operator of ClusterOperator name writing conds at off.
func (b *builder) write(off, name string, conds ...cond) *builder {
	return b.writeAs(RoleOperator, off, name, "", conds...)
}

// upgrade is write, also setting the operator version to v.
func (b *builder) upgrade(off, name, v string, conds ...cond) *builder {
	return b.writeAs(RoleOperator, off, name, v, conds...)
}

// writeAs records a write by role; v, if set, is the operator version it
// writes.
func (b *builder) writeAs(role, off, name, v string, conds ...cond) *builder {
	now := b.conds[name]
	verb := timeline.VerbUpdateStatus
	if now == nil {
		now, verb = map[string]timeline.Condition{}, timeline.VerbCreate
		b.conds[name] = now
	}
	e := timeline.Event{Seq: len(b.events) + 1, Time: at(off), Actor: role + "/" + name, Role: role, Verb: verb,
		Object: timeline.ObjectRef{Kind: kindClusterOperator, Group: configGroup, Name: name}}
	for _, x := range conds {
		after := timeline.Condition{Type: x.typ, Status: x.status, Reason: x.reason, Message: x.message, LastTransitionTime: at(off)}
		before, had := now[x.typ]
		if had && before.Status == x.status {
			after.LastTransitionTime = before.LastTransitionTime
		}
		if x.stamped != "" {
			after.LastTransitionTime = at(x.stamped)
		}
		if had && before.Same(after) {
			continue
		}
		ch := timeline.ConditionChange{Type: x.typ, After: &after}
		if had {
			ch.Before = &before
		}
		e.Conditions = append(e.Conditions, ch)
		now[x.typ] = after
	}
	if v != "" {
		raw := func(v string) json.RawMessage {
			if v == "" {
				return nil
			}
			out, _ := json.Marshal([]version{{Name: operatorVersion, Version: v}})
			return out
		}
		e.Fields = []timeline.FieldChange{{Path: fieldVersions, Before: raw(b.versions[name]), After: raw(v)}}
		b.versions[name] = v
	}
	b.events = append(b.events, e)
	return b
}

// upgraded is the seed's story (001 §Conditions): a component at 4.0.0
// works towards 4.0.1 and reaches it, with the seed's messages.
func upgraded() *builder {
	return newTimeline().
		upgrade("0s", "etcd", "4.0.0", c(condDegraded, statusFalse, ""), c(condAvailable, statusTrue, "Cluster has deployed 4.0.0"),
			c(condProgressing, statusFalse, "Cluster version is 4.0.0"), c(condUpgradeable, statusTrue, "")).
		write("1m", "etcd", c(condProgressing, statusTrue, "Working towards 4.0.1")).
		upgrade("5m", "etcd", "4.0.1", c(condAvailable, statusTrue, "Cluster has deployed 4.0.1"), c(condProgressing, statusFalse, "Cluster version is 4.0.1"))
}

// seedFailing is the seed's example of an error that blocks reaching
// 4.0.1: Degraded with the detailed message, Progressing with the terse one.
const seedFailing = "Unable to apply 4.0.1: could not update 0000_70_network_deployment.yaml because the resource type NetworkConfig has not been installed on the server."

func blocked() *builder {
	return upgraded().write("10m", "etcd", c(condDegraded, statusTrue, seedFailing),
		c(condProgressing, statusTrue, "Unable to apply 4.0.1: a required object is missing"))
}

// ruleCase is one row of a rule's table.
type ruleCase struct {
	name     string
	tl       *builder
	cfg      *Config // DefaultConfig when nil
	want     reports.Status
	message  []string // what the verdict's message must contain
	evidence []string // offsets of exactly the evidence events, in order
}

// verdictOf checks tc with rule id, on a timeline that ends at +1h. The
// builders add events in the order a case reads best; a timeline is in
// the order of time, as the rules read it as it passes (events of one
// instant in the order they were added).
func verdictOf(t *testing.T, id string, tc ruleCase) judge.Verdict {
	t.Helper()
	cfg := DefaultConfig()
	if tc.cfg != nil {
		cfg = *tc.cfg
	}
	events := slices.Clone(tc.tl.events)
	slices.SortStableFunc(events, func(a, b timeline.Event) int { return a.Time.Compare(b.Time) })
	for i := range events {
		events[i].Seq = i + 1
	}
	for _, r := range Rules(cfg) {
		if r.ID == id {
			return r.Check(judge.NewJudging(events, at("1h")))
		}
	}
	t.Fatalf("no rule %s", id)
	return judge.Verdict{}
}

// runTable judges every case with rule id and checks the verdict.
func runTable(t *testing.T, id string, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := verdictOf(t, id, tc)
			if v.Status != tc.want {
				t.Fatalf("status %s, want %s; message: %s", v.Status, tc.want, v.Message)
			}
			for _, m := range tc.message {
				if !strings.Contains(v.Message, m) {
					t.Errorf("message %q does not contain %q", v.Message, m)
				}
			}
			got := []string{}
			for _, e := range v.Evidence {
				got = append(got, e.Time.Sub(timeline.Epoch).String())
			}
			want := []string{}
			for _, off := range tc.evidence {
				want = append(want, at(off).Sub(timeline.Epoch).String())
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("evidence at %v, want %v", got, want)
			}
			if tc.want == reports.Fail && len(v.Problems) == 0 {
				t.Errorf("a failure without problems: %s", v.Message)
			}
		})
	}
}
