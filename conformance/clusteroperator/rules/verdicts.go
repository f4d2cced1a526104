package rules

import (
	"maps"
	"slices"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// The rules' verdicts, judged in one fold (judge.Jointly): the contract
// rules', what each found of each component, in the components' order,
// and the reactions it measured; the conditions' rules', what each found
// of the operator's writes.

// nothing is each rule's reason for not judging, when it found nothing to
// judge (CO-008's names its bound).
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
	r020: "not judged: the operator wrote no condition of a ClusterOperator in this run",
	r021: "not judged: the operator set no condition message in this run",
	r022: "not judged: the operator set no Progressing message in this run",
	r023: "not judged: the operator set no Available message in this run",
	r024: "not judged: the operator never reported Failing or Degraded True in this run",
	r025: "not judged: the operator never reported Upgradeable=False in this run",
	r026: "not judged: the operator set no reason in this run",
}

// order is the rules' IDs in the order of the fold's verdicts (Rules'
// order).
var order = []string{r001, r002, r003, r004, r005, r006, r007, r008, r009, r010, r020, r021, r022, r023, r024, r025, r026}

// Ends is of no use to these rules: a deadline past the end is settled
// when the verdicts are asked (finish).
func (g *coJudging) Ends(time.Time) {}

// Verdicts are the rules' verdicts, in Rules' order, once the timeline
// ends at end.
func (g *coJudging) Verdicts(end time.Time) []judge.Verdict {
	byID := g.contract(end)
	detailed := g.detailed
	detailed.Note(usesNote(g.objects, g.uses))
	for id, f := range map[string]judge.Findings{r020: g.valid, r021: g.capital, r022: g.terse, r023: g.sentence,
		r024: detailed, r025: g.explained, r026: g.camel} {
		byID[id] = f.Verdict(nothing[id])
	}
	out := make([]judge.Verdict, len(order))
	for i, id := range order {
		out[i] = byID[id]
	}
	return out
}

// contract is the contract rules' verdicts, by ID, once the timeline ends
// at end.
func (g *coJudging) contract(end time.Time) map[string]judge.Verdict {
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
	return out
}

// joint is the rules judging with c, in one fold (judge.Jointly).
func (c Config) joint() judge.Jointly[Config] {
	return judge.Jointly[Config]{Config: c, Open: func(c Config, start time.Time) judge.Joint { return openJudging(c, start) }}
}

// verdict is rule id's Check: its verdict of the fold.
func (c Config) verdict(id string) func(j *judge.Judging) judge.Verdict {
	i := slices.Index(order, id)
	return func(j *judge.Judging) judge.Verdict { return c.joint().Verdicts(j)[i] }
}

// Online is the rules' reader of a stream judged with cfg (judge.Stream):
// it judges as the events pass once the stream says where offsets count
// from (judge.Streaming, a stream whose tolerance was given ahead), and
// keeps the events otherwise.
func Online(cfg Config) judge.Online { return cfg.joint().Online() }
