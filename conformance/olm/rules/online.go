package rules

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules judge a timeline as it streams past, one event at a time, and
// batch judging is the same fold over a timeline held whole: a long run's
// timeline (opcert analyze) is judged in memory that does not grow with
// it. What is held is the world as it stands (and, for OLM-006, the
// worlds of the last reaction bound), each process's down spans, per
// watched output its open intervals (watch.go), per Probe and Upgrade
// what the rules found, and the names OLM-009 reads; no event but the
// evidence of a failure.

// rule indexes, in Rules' order.
const (
	r001 = iota
	r002
	r003
	r004
	r006
	r007
	r008
	r009
	r010
	r011
	nRules
)

// gates are the gates an Upgrade may ask, as OLM-011 reads them: the
// Probe's, the OperatorCondition's, any other (or none).
const (
	gProbe = iota
	gOC
	gAny
	nGates
)

// gateMark stands for the gate's name in OLM-011's problems until the
// timeline's first Upgrade names it.
const gateMark = "\x00gate\x00"

// olmJudging is the OLM rules over a timeline read so far.
type olmJudging struct {
	c     Config
	start time.Time
	// end is where the timeline ends, when known as the events pass (a
	// timeline held whole): a change owed after it is not judged. Read as
	// a stream, an interval is judged once an event after its deadline
	// came, and the end is known only then.
	end   time.Time
	ends  bool
	w     *world
	procs judge.Processes
	pos   int
	// recent are the worlds before each event of the last reaction bound
	// (OLM-006: the gate blocked all through it).
	recent []moment

	// Per rule: a watcher per object, and the watchers of no object yet
	// (the Probe's inputs before its first write, an Upgrade's by
	// namespace), from which an object's starts.
	probes    [3]map[timeline.ObjectRef]*watcher // OLM-001, OLM-002, OLM-010
	probeProp *watcher
	spec      *watcher // OLM-003
	upgrades  map[timeline.ObjectRef]*watcher
	decisions map[timeline.ObjectRef]*judge.Tally
	upProto   map[string]*watcher
	opConds   map[timeline.ObjectRef]*watcher
	// says are OLM-011's watchers, one per gate until the first Upgrade
	// names the gate (gate, known), then that gate's only.
	says  [nGates]*watcher
	gate  string
	known bool

	left    judge.Tally // OLM-004
	inScope map[timeline.ObjectRef]bool
	valid   judge.Tally // OLM-007
	// OLM-009: the Probes named after the operator's CSVs so far, how
	// many Probe writes of the aggregator, and those of a Probe not named
	// so far.
	named    map[timeline.ObjectRef]bool
	written  int
	unnamed  []timeline.Event
	finished bool
}

// moment is the world just before an event at t.
type moment struct {
	t      time.Time
	before *world
}

func openJudging(c Config, start time.Time) *olmJudging {
	g := &olmJudging{c: c, start: start, procs: judge.Processes{},
		w: &world{crds: map[string]crd{}, crs: map[string]map[timeline.ObjectRef]cr{}, probes: map[timeline.ObjectRef]probe{},
			opConds: map[timeline.ObjectRef]opCond{}, upgrades: map[timeline.ObjectRef]upgrade{}},
		upgrades: map[timeline.ObjectRef]*watcher{}, decisions: map[timeline.ObjectRef]*judge.Tally{}, upProto: map[string]*watcher{},
		opConds: map[timeline.ObjectRef]*watcher{}, inScope: map[timeline.ObjectRef]bool{}, named: map[timeline.ObjectRef]bool{}}
	for i := range g.probes {
		g.probes[i] = map[timeline.ObjectRef]*watcher{}
	}
	g.probeProp = newWatcher(statusWatch(timeline.ObjectRef{}, notJudged))
	g.spec = newWatcher(specWatch())
	for k, gate := range []string{gateProbe, gateOperatorCondition, ""} {
		g.says[k] = newWatcher(c.saysWatch(gate))
	}
	return g
}

// notJudged is the check of a watch of no object yet.
func notJudged(*world) (string, bool) { return "", false }

// off cites an instant as the rules do (judge.Judging.Offset).
func (g *olmJudging) off(t time.Time) string { return judge.OffsetOf(t.Sub(g.start)) }

// watchers are every watcher, in no order.
func (g *olmJudging) watchers(f func(*watcher)) {
	for _, m := range g.probes {
		for _, x := range m {
			f(x)
		}
	}
	for _, m := range []map[timeline.ObjectRef]*watcher{g.upgrades, g.opConds} {
		for _, x := range m {
			f(x)
		}
	}
	for _, x := range g.upProto {
		f(x)
	}
	for _, x := range g.says {
		if x != nil {
			f(x)
		}
	}
	f(g.probeProp)
	f(g.spec)
}

// read takes the next event.
func (g *olmJudging) Read(e timeline.Event) {
	g.watchers(func(x *watcher) { x.settle(g, e.Time, false) })
	process := e.Object.Kind == timeline.KindProcess && e.Object.Group == ""
	if process {
		g.remember(e.Time, g.w)
		actor := e.Object.Name
		first := g.procs[actor] == nil
		g.procs.Note(e, g.pos)
		if first {
			start := e.Verb == timeline.VerbStart || e.Verb == timeline.VerbReconnect
			g.watchers(func(x *watcher) {
				if x.w.actor == actor {
					x.seen(start)
				}
			})
		}
		g.pos++
		return
	}
	if !e.IsWrite() || !inWorld(e.Object) {
		return
	}
	was := g.w
	g.w = g.w.clone()
	g.w.apply(e)
	g.judgeWrite(e, was, g.w)
	g.remember(e.Time, was)
	g.pos++
}

// remember keeps the world before an event at t for as long as OLM-006
// may look back to it: the reaction bound.
func (g *olmJudging) remember(t time.Time, before *world) {
	keep := 0
	for keep < len(g.recent) && g.recent[keep].t.Before(t.Add(-g.c.allowance())) {
		keep++
	}
	g.recent = append(g.recent[keep:], moment{t: t, before: before})
}

// judgeWrite judges a write of the world's objects.
func (g *olmJudging) judgeWrite(e timeline.Event, was, now *world) {
	o := e.Object
	switch {
	case isProbe(o):
		g.probeWrite(e, was, now)
		if g.probes[0][o] == nil {
			for i := range g.probes {
				g.probes[i][o] = g.probeProp.clone(statusWatch(o, g.c.statusChecks(o)[i]))
			}
		}
	case o.Kind == kindUpgrade && o.Group == groupOpcert:
		if g.upgrades[o] == nil {
			w := gateWatch(o)
			if p := g.upProto[o.Namespace]; p != nil {
				g.upgrades[o] = p.clone(w)
			} else {
				g.upgrades[o] = newWatcher(w)
			}
			g.decisions[o] = &judge.Tally{}
		}
		g.c.judgeDecision(g, e, was, now)
		if u, ok := now.upgrades[o]; ok && u.spec.Gate != "" && !g.known {
			g.gate, g.known = u.spec.Gate, true
			k := map[string]int{gateProbe: gProbe, gateOperatorCondition: gOC}[g.gate]
			if g.gate != gateProbe && g.gate != gateOperatorCondition {
				k = gAny
			}
			for i := range g.says {
				if i != k {
					g.says[i] = nil
				}
			}
		}
		if e.Verb != timeline.VerbDelete {
			if from := now.upgrades[o].spec.From; from != "" {
				g.name(timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: o.Namespace, Name: from})
			}
		}
	case o.Kind == kindOperatorCondition && o.Group == groupOperators:
		if g.opConds[o] == nil {
			g.opConds[o] = newWatcher(copyWatch(o))
		}
		if e.Verb != timeline.VerbDelete {
			g.name(timeline.ObjectRef{Kind: kindProbe, Group: groupOperators, Namespace: o.Namespace, Name: o.Name})
		}
	}
	if o.Group == groupOperators && (o.Kind == kindProbe || o.Kind == kindOperatorCondition) && g.upProto[o.Namespace] == nil {
		g.upProto[o.Namespace] = newWatcher(upgradeProto(o.Namespace))
	}
	g.watchers(func(x *watcher) { x.step(g, e, g.pos, was, now) })
}

// name notes a Probe named after the operator's CSV (OLM-009): its
// aggregator's writes so far were to the right one.
func (g *olmJudging) name(ref timeline.ObjectRef) {
	if g.named[ref] {
		return
	}
	g.named[ref] = true
	g.unnamed = slices.DeleteFunc(g.unnamed, func(e timeline.Event) bool { return e.Object == ref })
}

// probeWrite judges a write of a Probe by itself: OLM-004, OLM-007,
// OLM-009.
func (g *olmJudging) probeWrite(e timeline.Event, was, now *world) {
	o := e.Object
	if p, ok := now.probes[o]; ok && !p.aggregated() {
		g.inScope[o] = true
	}
	if e.Role != RoleAggregator {
		return
	}
	g.written++
	if !g.named[o] {
		g.unnamed = append(g.unnamed, e)
	}
	g.judgeLeftAlone(e, was)
	if e.Verb != timeline.VerbDelete {
		g.judgeConditions(e, now)
	}
}

// finish judges what the end at end settles, once.
func (g *olmJudging) finish(end time.Time) {
	if g.finished {
		return
	}
	g.finished, g.end, g.ends = true, end, true
	g.watchers(func(x *watcher) { x.settle(g, end, true) })
}

// Ends tells where a timeline held whole ends.
func (g *olmJudging) Ends(end time.Time) { g.end, g.ends = end, true }

// Verdicts are the rules' verdicts, in Rules' order, once the timeline
// ends at end.
func (g *olmJudging) Verdicts(end time.Time) []judge.Verdict {
	g.finish(end)
	c := g.c
	out := make([]judge.Verdict, nRules)
	for i, name := range map[int]string{r001: " Upgradeable", r002: " probeResources", r010: ""} {
		k := map[int]int{r001: 0, r002: 1, r010: 2}[i]
		var f judge.Findings
		var ms []reports.Measure
		for _, ref := range sortedRefs(g.probes[k]) {
			x := g.probes[k][ref]
			x.rec.Into(&f)
			if i != r010 {
				ms = appendMeasure(ms, c, ref.String()+name, &x.took)
			}
		}
		nothing := "no Probe with a spec the aggregator keeps"
		if i == r010 {
			nothing = "no Probe the aggregator keeps was Upgradeable False"
		}
		out[i] = f.Verdict(nothing)
		out[i].Measures = ms
	}
	var f judge.Findings
	g.spec.rec.Into(&f)
	out[r003] = f.Verdict("no condition annotation and no Probe managed by crdAnnotations")
	out[r003].Measures = appendMeasure(nil, c, "Probe spec", &g.spec.took)

	f = judge.Findings{}
	g.left.Into(&f)
	f.Judged = len(g.inScope)
	out[r004] = f.Verdict("no Probe managed by the operator or with a nil spec")

	f = judge.Findings{}
	var ms []reports.Measure
	for _, ref := range sortedRefs(g.upgrades) {
		g.decisions[ref].Into(&f)
		g.upgrades[ref].rec.Into(&f)
		ms = appendMeasure(ms, c, ref.String(), &g.upgrades[ref].took)
	}
	out[r006] = f.Verdict("no Upgrade")
	out[r006].Measures = ms

	f = judge.Findings{}
	g.valid.Into(&f)
	out[r007] = f.Verdict("no condition written on a Probe by the aggregator")

	f, ms = judge.Findings{}, nil
	for _, ref := range sortedRefs(g.opConds) {
		g.opConds[ref].rec.Into(&f)
		ms = appendMeasure(ms, c, ref.String(), &g.opConds[ref].took)
	}
	out[r008] = f.Verdict("no OperatorCondition")
	out[r008].Measures = ms

	out[r009] = g.probeNamed()

	says := g.says[gAny]
	switch g.gate {
	case gateProbe:
		says = g.says[gProbe]
	case gateOperatorCondition:
		says = g.says[gOC]
	}
	f = judge.Findings{}
	r := says.rec.Clone()
	r.Reword(func(msg string) string { return strings.ReplaceAll(msg, gateMark, gateText(g.gate)) })
	r.Into(&f)
	out[r011] = f.Verdict("no operand migrated for longer than the reaction bound")
	out[r011].Measures = appendMeasure(nil, c, "not upgradeable while migrating", &says.took)
	return out
}

// probeNamed is OLM-009's verdict.
func (g *olmJudging) probeNamed() judge.Verdict {
	if len(g.named) == 0 {
		return judge.Verdict{Status: reports.Skip, Message: "the timeline names no CSV of the operator (no Upgrade, no OperatorCondition)"}
	}
	want := slices.SortedFunc(maps.Keys(g.named), func(a, b timeline.ObjectRef) int { return strings.Compare(a.String(), b.String()) })
	f := judge.Findings{Judged: g.written}
	for _, e := range g.unnamed {
		f.FailIn(fmt.Sprintf("%s at %s: the aggregator wrote (%s) a Probe that is not named after the operator's CSV in its namespace (%s): OLM's gate looks for the Probe there",
			e.Object, g.off(e.Time), e.Verb, refsText(want)), e.Time, e.Time, e)
	}
	return f.Verdict("the aggregator wrote no Probe")
}

// appendMeasure adds the reactions of one output to ms, when it has any.
func appendMeasure(ms []reports.Measure, c Config, name string, took *judge.Latencies) []reports.Measure {
	if took.Count() == 0 {
		return ms
	}
	return append(ms, took.Measure(name, c.allowance()))
}

// joint is the rules judging with c, in one fold (judge.Jointly).
func (c Config) joint() judge.Jointly[Config] {
	return judge.Jointly[Config]{Config: c, Open: func(c Config, start time.Time) judge.Joint { return openJudging(c, start) },
		Grows: "each aggregator write of a Probe no Upgrade or OperatorCondition names yet: OLM-009"}
}

// verdicts are the rules' verdicts on j.
func (c Config) verdicts(j *judge.Judging) []judge.Verdict { return c.joint().Verdicts(j) }

// Online is the rules' reader of a stream judged with cfg (judge.Stream):
// it judges as the events pass once the stream says where offsets count
// from (judge.Streaming, a stream whose tolerance was given ahead), and
// keeps the events otherwise.
func Online(cfg Config) judge.Online { return cfg.joint().Online() }
