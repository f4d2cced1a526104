package rules

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// The eight rules are written once, forward: each ClusterOperator's facts
// go through them one at a time (objJudge), which keep only what a later
// fact can still change (the last movement, the challenges not yet
// settled, the current cycle) and what they found. A timeline held whole
// is folded through the same reader and judging (Config.verdicts); one
// that streams past is judged as it passes (reader.Streaming), in memory
// that grows with the ClusterOperators, not with the events.
//
// What the detector owed depends on when it was up (life.go), and what an
// operator owed on whether it was down (judge.Processes): a fact is judged
// once every event at its instant is read, with the detector's life and
// the processes known up to there; what that does not settle yet (a
// deadline the detector's next start or death decides) waits for it, in
// the order the facts came. A timeline on which no process event brings
// the detector up has it up throughout: until one does, the facts wait
// (a timeline's first events start its processes); a stream judges them
// as such once onlineAfter wait, and a detector that comes up after that
// leaves the rules not judged, saying why.

// onlineAfter is how many facts a stream holds while no process event
// brought the detector up before it judges them with the detector up
// throughout, as on a recording of a live cluster (a variable: tests
// lower it).
var onlineAfter = 1 << 16

// judging is the STALE rules over a timeline read so far.
type judging struct {
	cfg   Config
	start time.Time
	// procs holds when each process was down (killed or cut off) or under
	// under an API fault: an operator whose calls
	// fail cannot answer, as a dead one cannot (reading 8).
	procs judge.Processes
	// detector is its life (life.go); seen says a process event brought
	// it up, always that the facts were judged with it up throughout.
	detector     life
	seen, always bool
	// stream says the judging bounds what waits for the detector
	// (onlineAfter).
	stream bool
	// waiting are the facts not judged yet, in order: those at now, and
	// all of them while the detector's life is not known (!seen).
	waiting []item
	now     time.Time
	final   bool
	judged  int
	objs    map[string]*objJudge
	broken  string // why the timeline cannot be judged after all
	// late2 and late4 are the detector's reaction times past its deadlines
	// over every ClusterOperator, for STALE-002's and STALE-004's measures.
	late2, late4 judge.Latencies
	done         map[time.Time][]judge.Verdict
}

func newJudging(cfg Config, start time.Time, stream bool) *judging {
	return &judging{cfg: cfg, start: start, procs: judge.Processes{}, stream: stream, objs: map[string]*objJudge{}}
}

// off cites an instant as the rules do (judge.OffsetOf): "-354ms" for a
// recorded write stamped before the recording began, never "+-354ms".
func (g *judging) off(t time.Time) string { return judge.OffsetOf(t.Sub(g.start)) }

// read takes the next item.
func (g *judging) read(it item) {
	t := it.f.at()
	if it.proc != nil {
		t = it.proc.Time
	}
	if t.After(g.now) {
		g.flush()
		g.now = t
	}
	if it.proc != nil {
		g.process(*it.proc, it.pos)
		return
	}
	g.waiting = append(g.waiting, it)
	if !g.seen && g.stream && len(g.waiting) > onlineAfter {
		g.seen, g.always, g.detector = true, true, alwaysUp()
	}
}

// process takes a process event.
func (g *judging) process(e timeline.Event, pos int) {
	switch e.Verb {
	case timeline.VerbStart, timeline.VerbReconnect:
		// An operator's first start ends no down time: the STALE rules
		// have always taken an operator as running before its first
		// process event (judge.Processes would have it down until then).
		if _, seen := g.procs[e.Object.Name]; seen {
			g.procs.Note(e, pos)
		}
	default:
		g.procs.Note(e, pos)
	}
	if e.Role != RoleDetector {
		return
	}
	switch {
	case g.always && up(e.Verb) && g.broken == "":
		g.broken = fmt.Sprintf("a process event (%s %s at %s) came after %d ClusterOperator writes were judged as they streamed, as a recording without process events",
			e.Actor, e.Verb, g.off(e.Time), g.judged)
	case !g.always:
		g.detector = g.detector.noteDetector(e)
		g.seen = g.seen || up(e.Verb)
	}
}

// flush judges the facts waiting, once the detector's life says who was
// up: every event at their instant has been read.
func (g *judging) flush() {
	if !g.seen {
		return
	}
	for _, it := range g.waiting {
		g.obj(it.name).read(it.f, it.operated)
		g.judged++
	}
	clear(g.waiting)
	g.waiting = g.waiting[:0]
	if cap(g.waiting) > maxInstant {
		g.waiting = nil // the facts that waited for the detector: not kept
	}
}

// maxInstant is how many facts the slice that holds those of one instant
// keeps room for.
const maxInstant = 1024

func (g *judging) obj(name string) *objJudge {
	j := g.objs[name]
	if j == nil {
		j = &objJudge{g: g, name: name, seenInc: -1}
		g.objs[name] = j
	}
	return j
}

// verdicts are the rules' verdicts, in Rules' order, once the timeline
// ends at end (a judging ends once). Objects are judged in name order.
func (g *judging) verdicts(end time.Time) []judge.Verdict {
	if v, ok := g.done[end]; ok {
		return v
	}
	if !g.seen {
		g.seen, g.always, g.detector = true, true, alwaysUp()
	}
	g.flush()
	g.final = true
	var all [nRules]judge.Findings
	if g.broken != "" {
		for i := range all {
			all[i].Skip(g.broken)
		}
	}
	var measures []reports.Measure
	for _, n := range slices.Sorted(maps.Keys(g.objs)) {
		j := g.objs[n]
		j.finish(end)
		if g.broken != "" {
			continue
		}
		for i := range all {
			all[i].Judged += j.f[i].judged
			for _, p := range j.f[i].problems {
				all[i].FailIn(p.Message, p.From, p.To, p.Evidence...)
			}
		}
		if j.judged7 {
			measures = append(measures, j.latency.Measure("ClusterOperator/"+n, g.cfg.AnswerBudget))
		}
	}
	nothing := [nRules]string{"no challenge in this run", "no ClusterOperator was still long enough", "no challenge in this run",
		"no challenge went unanswered in this run", "nothing was set Unknown in this run", "the detector wrote nothing in this run",
		"no challenge reached a running operator", "no challenge reached a running operator"}
	out := make([]judge.Verdict, nRules)
	for i := range out {
		out[i] = all[i].Verdict(nothing[i])
	}
	if g.broken == "" {
		out[r002] = withMeasure(out[r002], &g.late2, challengeLateness, g.cfg.AnswerBudget)
		out[r004] = withMeasure(out[r004], &g.late4, markLateness, g.cfg.AnswerBudget)
		out[r007].Measures = measures
	}
	g.done = map[time.Time][]judge.Verdict{end: out}
	return out
}

// replay judges what a reader kept.
func (g *judging) replay(items []item) {
	for _, it := range items {
		g.read(it)
	}
}

// rule indexes, in Rules' order.
const (
	r001 = iota
	r002
	r003
	r004
	r005
	r006
	r007
	r008
	nRules
)

// tally is what one rule found on one ClusterOperator, its problems in
// the order its facts came: the rules' verdicts add them up over the
// objects in name order (judge.Findings).
type tally struct {
	judged   int
	problems []judge.Problem
}

func (t *tally) fail(msg string, evidence ...fact) { t.failUntil(msg, time.Time{}, evidence...) }

// failUntil is a failure whose judged window runs past its evidence, to
// until: what was missing was looked for until then (so a recording gap
// before then may hold it).
func (t *tally) failUntil(msg string, until time.Time, evidence ...fact) {
	p := judge.Problem{Message: msg, To: until}
	for _, e := range evidence {
		p.Evidence = append(p.Evidence, e.ev())
	}
	t.problems = append(t.problems, p)
}

// objJudge is the rules' state for one ClusterOperator.
type objJudge struct {
	g    *judging
	name string
	f    [nRules]tally
	// seenInc is the detector's incarnation (life.incarnation) that was
	// up at the earliest fact it saw of the object, at seenAt (-1: none
	// yet): whether it knew the object before a movement (STALE-001).
	seenInc int
	seenAt  time.Time
	last1   *fact // STALE-001: the last movement
	dated1  bool  //   and whether the detector up at it had seen the object before (dates it by its write)
	inc1    int   //   the incarnation up at it (-1: none)
	last2   *fact // STALE-002: the movement owed a challenge
	unsure2 []unsure
	// STALE-004: challenges not yet followed by a move or a mark, then
	// those followed by one whose judgement waits for the detector's
	// life, in order; owed4 the deadlines of marks never written, measured
	// to the end.
	pending4 []fact
	queue4   []wait4
	owed4    []time.Time
	ch5      *fact // STALE-005
	moved5   *fact
	cycle6   []fact    // STALE-006
	queue    []*reply7 // STALE-007/008: challenges in order, settled from the head
	latency  judge.Latencies
	judged7  bool
}

// read takes the next fact of the object, operated saying whether the
// operator role had written it by then.
func (j *objJudge) read(x fact, operated bool) {
	j.stillness(x)
	j.due(x)
	j.challengeText(x)
	j.marked(x)
	j.markJustified(x)
	j.writesPerCycle(x)
	j.answers(x, operated)
}

// finish judges what the end at end settles.
func (j *objJudge) finish(end time.Time) {
	j.dueAtEnd(end)
	j.markedAtEnd(end)
	j.flush6()
	j.settle(end, end)
}
