package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules judge a timeline as it streams past, one event at a time, and
// batch judging is the same fold over a timeline held whole (Check): a
// long recording (opcert analyze, opcert watch) is judged in memory that
// does not grow with it. What is held, per cluster, is its story's window
// (story.go: the events of the last reaction bound, and those of the
// changes whose deadline has not come, which the operator's being down
// draws out), its objects as they stand, and what the rules found; per
// rule, the reactions measured (a duration a change).

// rule indexes, in Rules' order.
const (
	r001 = iota
	r002
	r003
	r004
	r005
	r006
	r007
	r009
	r010
	nRules
)

// findings are what one rule found in one cluster: what it judged, what
// it could not judge and why, and its problems, those owed a change
// (judged at its deadline) before those of the writes.
type findings struct {
	judged        int
	notes         []string
	owed, written []judge.Problem
}

// clusterJudge is the rules' state for one cluster.
type clusterJudge struct {
	s       *story
	f       [nRules]findings
	watches []*watching
	// paused and since: STACKABLE-005's span, open while the cluster is
	// paused.
	paused bool
	since  time.Time
}

// owedChange is a change waiting for its deadline.
type owedChange struct {
	wt    *watching
	first int
	from  time.Time
}

// judging is the STACKABLE rules over a timeline read so far.
type judging struct {
	c     Config
	start time.Time
	procs judge.Processes
	// events is how many events came before the one being read: its
	// position, which the process record keeps.
	events int
	// clusters by ref, their names by namespace, and the cluster each
	// workload and pod belongs to by its last labels.
	clusters map[timeline.ObjectRef]*clusterJudge
	names    map[string][]string
	owner    map[timeline.ObjectRef]*clusterJudge
	orphans  map[timeline.ObjectRef]orphan
	// owing are the changes of every cluster whose deadline has not come,
	// in the order they came (their deadlines' order), from head on.
	owing []owedChange
	head  int
	took  [nRules]*reactions
	// probed says a write recorded status.conditions (STACKABLE-010).
	probed bool
	// seen says the operator was seen: its process started (a run), or it
	// wrote (a recording, which has no process events).
	seen bool
	now  time.Time
	// end is where the timeline ends, when known as the events pass (a
	// timeline held whole): a change owed after it is not judged, whatever
	// comes after it. Read as a stream, a change is judged once an event
	// after its deadline came, and the end is known only then.
	end time.Time
}

func openJudging(c Config, start time.Time) *judging {
	g := &judging{c: c, start: start, procs: judge.Processes{}, clusters: map[timeline.ObjectRef]*clusterJudge{},
		names: map[string][]string{}, owner: map[timeline.ObjectRef]*clusterJudge{}, orphans: map[timeline.ObjectRef]orphan{}}
	for i, name := range map[int]string{r001: "Available", r002: "Progressing", r003: "Degraded", r004: "Paused and Stopped", r006: "replicas to 0", r009: "messages"} {
		g.took[i] = &reactions{name: name}
	}
	return g
}

// off cites an instant as the rules do (judge.Judging.Offset).
func (g *judging) off(t time.Time) string { return judge.OffsetOf(t.Sub(g.start)) }

// Read takes the next event.
func (g *judging) Read(e timeline.Event) {
	g.owe(e.Time)
	g.now = e.Time
	g.seen = g.seen || e.Object.Kind == timeline.KindProcess && e.Object.Name == actorOperator || e.IsWrite() && e.Role == RoleOperator
	pos := g.events
	g.events++
	if e.Object.Kind == timeline.KindProcess && e.Object.Group == "" {
		g.procs.Note(e, pos)
		return
	}
	if !e.IsWrite() {
		return
	}
	switch {
	case isCluster(e.Object):
		cj := g.clusters[e.Object]
		if cj == nil {
			cj = g.newCluster(e.Object)
		}
		g.step(cj, e)
	case isWorkload(e.Object) || isPod(e.Object):
		path := fieldLabels
		if isWorkload(e.Object) {
			path = fieldTemplateLabels
		}
		was := g.owner[e.Object]
		now := was
		if f, ok := e.Field(path); ok {
			var labels map[string]string
			f.Decode(&labels)
			now = nil
			if name := ownerName(g.names[e.Object.Namespace], labels[labelInstance]); name != "" {
				now = g.clusters[timeline.ObjectRef{Kind: kindCluster, Group: groupSamples, Namespace: e.Object.Namespace, Name: name}]
			}
		}
		// An object relabelled away from a cluster leaves its story
		// with this event, and joins its new one.
		if was != nil && was != now {
			g.step(was, e)
		}
		if now != nil {
			g.step(now, e)
		}
		if now == nil || e.Verb == timeline.VerbDelete {
			delete(g.owner, e.Object)
		} else {
			g.owner[e.Object] = now
		}
		g.orphan(e, now)
	}
}

// orphan keeps a workload or pod labelled with a cluster not seen yet
// (owner nil), as it stands, for the cluster to adopt when it comes.
func (g *judging) orphan(e timeline.Event, owner *clusterJudge) {
	o, kept := g.orphans[e.Object]
	if owner != nil || e.Verb == timeline.VerbDelete {
		if kept {
			delete(g.orphans, e.Object)
		}
		return
	}
	if !kept {
		o = orphan{pod: isPod(e.Object)}
	}
	if o = o.with(e); o.instance == "" {
		delete(g.orphans, e.Object)
		return
	}
	g.orphans[e.Object] = o
}

// newCluster starts the story of a cluster at its first write, with the
// workloads and pods already labelled with its name.
func (g *judging) newCluster(ref timeline.ObjectRef) *clusterJudge {
	g.names[ref.Namespace] = append(g.names[ref.Namespace], ref.Name)
	cj := &clusterJudge{s: &story{ref: ref}}
	g.clusters[ref] = cj
	for _, r := range slices.SortedFunc(maps.Keys(g.orphans), compareRefs) {
		if o := g.orphans[r]; r.Namespace == ref.Namespace && ownerName(g.names[ref.Namespace], o.instance) == ref.Name {
			cj.s.adopt(r, o)
			g.owner[r] = cj
			delete(g.orphans, r)
		}
	}
	for _, w := range g.c.watches(cj.s) {
		cj.watches = append(cj.watches, &watching{s: cj.s, w: w.watch, f: &cj.f[w.rule], r: g.took[w.rule]})
	}
	return cj
}

func compareRefs(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) }

// step adds e to the cluster's story and judges it.
func (g *judging) step(cj *clusterJudge, e timeline.Event) {
	i := cj.s.add(e)
	for _, wt := range cj.watches {
		n := len(wt.owing)
		wt.read(g.c, i, g.reflects(e.Time), g.off)
		if len(wt.owing) > n {
			g.owing = append(g.owing, owedChange{wt: wt, first: i, from: e.Time})
		}
	}
	g.pause(cj, i)
	g.conditions(cj, i)
	g.trim(cj)
}

// maxUnseen is how many changes wait for an operator not seen yet before
// the oldest is given up, not judged: a recording in which it never
// writes is still read in bounded memory.
const maxUnseen = 4096

// owe judges the changes whose deadline has passed before now: every
// event up to it has been read. None is judged before the operator is
// seen: a run's first start of it makes it down until then (a change
// before it is owed from that start on), and a recording shows it only
// by its writes.
func (g *judging) owe(now time.Time) {
	for ; g.head < len(g.owing); g.head++ {
		o := g.owing[g.head]
		owed, ok := g.procs.Owed(actorOperator, o.from, g.c.slack())
		if !g.seen && len(g.owing)-g.head > maxUnseen {
			g.settle(o, owed)
			continue
		}
		if !g.seen || !ok || !owed.Before(now) {
			break
		}
		g.settle(o, owed)
	}
	if g.head > 64 && g.head > len(g.owing)/2 {
		g.owing = append([]owedChange(nil), g.owing[g.head:]...)
		g.head = 0
	}
}

// reflects is the earliest instant whose world the operator's write at t
// may reflect: the slack before it, or before the down or faulted spans
// that kept it from reading and writing until then (judge.Processes.Reflects).
func (g *judging) reflects(t time.Time) time.Time {
	return g.procs.Reflects(actorOperator, t, g.c.slack())
}

// trimAfter is how many events a story's window holds before it is
// trimmed (a variable: tests trim at every event).
var trimAfter = 128

// trim drops the events of the cluster's story no rule reads any more:
// those before the last one older than the slack (a write's window starts
// there), but the changes still owed.
func (g *judging) trim(cj *clusterJudge) {
	s := cj.s
	if len(s.events) < trimAfter {
		return
	}
	keep := max(s.last(s.base, g.reflects(g.now), false), s.base)
	for _, wt := range cj.watches {
		keep = min(keep, wt.keep())
	}
	if keep-s.base < len(s.events)/2 {
		return
	}
	for _, wt := range cj.watches {
		wt.cutting(keep)
	}
	s.cut(keep)
}

// finish judges what the end at end settles, once.
func (g *judging) finish(end time.Time) {
	for _, cj := range g.clusters {
		for _, wt := range cj.watches {
			wt.finish()
		}
	}
	for ; g.head < len(g.owing); g.head++ {
		o := g.owing[g.head]
		owed, ok := g.procs.Owed(actorOperator, o.from, g.c.slack())
		switch {
		case !ok:
			o.wt.owing = o.wt.owing[1:]
			o.wt.f.notes = append(o.wt.f.notes, fmt.Sprintf("%s down from %s", actorOperator, g.off(o.from)))
		default:
			g.end = end
			g.settle(o, owed)
		}
	}
}

// settle judges change o at its deadline owed, or says why it does not:
// the operator was not seen (a recording in which it did not write, or
// whose writes were put down to no role: its absence is no failure of
// it), or it was owed after the end, when the end is known.
func (g *judging) settle(o owedChange, owed time.Time) {
	note := ""
	switch {
	case !g.seen:
		note = fmt.Sprintf("no write of the %s seen by %s, when the change at %s was owed", RoleOperator, g.off(owed), g.off(o.from))
	case !g.end.IsZero() && owed.After(g.end):
		note = fmt.Sprintf("the run ended before %s, when the change at %s was owed", g.off(owed), g.off(o.from))
	default:
		o.wt.owe(g.c, o.first, owed, g.off)
		return
	}
	o.wt.owing = o.wt.owing[1:]
	o.wt.f.notes = append(o.wt.f.notes, note)
}

// judgement is one rule's findings over every cluster, in the clusters'
// order.
func (g *judging) judgement(rule int) *judge.Findings {
	var out judge.Findings
	for _, ref := range slices.SortedFunc(maps.Keys(g.clusters), compareRefs) {
		f := g.clusters[ref].f[rule]
		out.Judged += f.judged
		for _, n := range f.notes {
			out.Skip(n)
		}
		for _, p := range append(slices.Clip(f.owed), f.written...) {
			out.FailIn(p.Message, p.From, p.To, p.Evidence...)
		}
	}
	return &out
}

// Ends tells where a timeline held whole ends.
func (g *judging) Ends(end time.Time) { g.end = end }

// Verdicts are the rules' verdicts, in Rules' order, once the timeline
// ends at end.
func (g *judging) Verdicts(end time.Time) []judge.Verdict {
	g.finish(end)
	c, slack := g.c, g.c.slack()
	out := make([]judge.Verdict, nRules)
	out[r001] = g.took[r001].verdict(g.judgement(r001), noWorkload, slack)
	out[r002] = g.took[r002].verdict(g.judgement(r002), noWorkload, slack)
	out[r003] = g.took[r003].verdict(g.judgement(r003), noWorkload, slack)
	if c.operatorRS() {
		out[r002], out[r003] = c.notBuilt(condProgressing), c.notBuilt(condDegraded)
	}
	out[r004] = g.took[r004].verdict(g.judgement(r004), "no SampleCluster reconciled without errors", slack)
	out[r005] = g.judgement(r005).Verdict("no SampleCluster paused")
	out[r006] = g.took[r006].verdict(g.judgement(r006), "no SampleCluster stopped", slack)
	out[r007] = g.judgement(r007).Verdict("no condition written on a SampleCluster by the operator")
	out[r009] = g.judgement(r009).Verdict("no SampleCluster with conditions, reconciled without errors")
	j010 := g.judgement(r010)
	if !g.probed && j010.Judged > 0 {
		j010.Skip("lastProbeTime: no write recorded status.conditions")
	}
	out[r010] = j010.Verdict("no condition written on a SampleCluster by the operator")
	return out
}

// joint is the rules judging with c, in one fold (judge.Jointly).
func (c Config) joint() judge.Jointly[Config] {
	return judge.Jointly[Config]{Config: c, Open: func(c Config, start time.Time) judge.Joint { return openJudging(c, start) }}
}

// verdicts are the rules' verdicts on j.
func (c Config) verdicts(j *judge.Judging) []judge.Verdict { return c.joint().Verdicts(j) }

// Online is the rules' reader of a stream judged with cfg (judge.Stream):
// it judges as the events pass once the stream says where offsets count
// from (judge.Streaming, a stream whose tolerance was given ahead), and
// keeps the events otherwise.
func Online(cfg Config) judge.Online { return cfg.joint().Online() }
