package rules

import (
	"maps"
	"slices"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// The contract rules' verdicts: what each found of each component, in
// the components' order, and the reactions it measured.

// nothing is each contract rule's reason for not judging, when it found
// nothing to judge.
var nothing = map[string]string{
	r001: "not judged: no operator reported Available=True in this run",
	r002: "not judged: no operator moved versions[operator] in this run",
	r003: "not judged: no rollout completed in this run",
	r004: "not judged: no rollout in this run",
	r005: "not judged: no operator turned Progressing True in this run",
	r006: "not judged: no rollout completed in this run",
	r007: "not judged: no operator moved versions[operator] in this run",
	r009: "not judged: no administrator's blocker in this run",
	r010: "not judged: no installed component's operands served at full strength in this run",
}

// verdicts are the contract rules' verdicts, by ID, once the timeline
// ends at end (a judging ends once).
func (g *coJudging) verdicts(end time.Time) map[string]judge.Verdict {
	if v, ok := g.done[end]; ok {
		return v
	}
	g.finish(end)
	c := g.c
	names := slices.Sorted(maps.Keys(g.comps))
	out := map[string]judge.Verdict{}
	for _, id := range []string{r001, r002, r003, r004, r005, r006, r007, r008, r009, r010} {
		var f judge.Findings
		for _, name := range names {
			x := g.comps[name]
			x.t(id).Into(&f)
			if id == r006 {
				x.t(r006b).Into(&f)
			}
		}
		why := nothing[id]
		if id == r008 {
			why = "not judged: no rollout made no progress for " + c.stuck().String() + " in this run"
		}
		out[id] = f.Verdict(why)
	}
	for id, m := range map[string]struct {
		name  string
		bound time.Duration
	}{
		r003: {"version reported after completion", c.slack()},
		r004: {"Progressing=True naming the version after a rollout began", c.significant() + c.slack()},
		r008: {"Failing or Degraded True after a stall's deadline", c.slack()},
		r009: {"Upgradeable after the administrator's blocker changed", c.slack()},
		r010: {"Available=True after the operands serve", c.slack()},
	} {
		if l := g.took[id]; l != nil && l.Count() > 0 {
			v := out[id]
			v.Measures = []reports.Measure{l.Measure(m.name, m.bound)}
			out[id] = v
		}
	}
	g.done = map[time.Time]map[string]judge.Verdict{end: out}
	return out
}

// factsKey is the key of what a timeline's reader keeps among a
// judging's facts.
type factsKey struct{}

// judgedKey is the key of the rules of a configuration judging a
// timeline.
type judgedKey struct{ c Config }

// judging is the rules' judging of j: its reader's, made as the events
// passed with these rules, or the events folded through one.
func (c Config) judging(j *judge.Judging) *coJudging {
	return judge.Judged(j, factsKey{}, judgedKey{c}, func(start time.Time) *coJudging { return openJudging(c, start) },
		func(g *coJudging) bool { return g.c == c })
}

// contract is contract rule id's verdict on j.
func (c Config) contract(id string) func(j *judge.Judging) judge.Verdict {
	return func(j *judge.Judging) judge.Verdict { return c.judging(j).verdicts(j.End)[id] }
}

// Online is the rules' reader of a stream judged with cfg (judge.Stream):
// it judges as the events pass once the stream says where offsets count
// from, and keeps the events otherwise.
func Online(cfg Config) judge.Online {
	return judge.JudgedOnline(factsKey{}, func(start time.Time) *coJudging { return openJudging(cfg, start) })
}
