package rules

import (
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// Seed 001's rules read a timeline one event at a time, whether it
// streams past (opcert analyze, opcert watch) or is held whole (a run
// judged at its end, folded through the same reading): memory follows
// the components, not the events. Kept per component: the status its
// ClusterOperator's last write left, its operands and pods as they stand,
// the rollout under way, the writes of the last Tolerance, and each
// rule's open deadlines (a rollout's, a stall's, a blocker's, a window of
// full strength) and findings; per process, its down spans. An event is
// kept only as the evidence of a failure or of an open deadline.
//
// A deadline is judged once an event after it has come (the status at
// the deadline is then the last write at or before it), or at the end of
// the timeline.

// The rules, by ID: what each contract rule found is kept under it, per
// component; the conditions' rules (CO-020 on) keep theirs in coJudging.
const (
	r001 = "CO-001"
	r002 = "CO-002"
	r003 = "CO-003"
	r004 = "CO-004"
	r005 = "CO-005"
	r006 = "CO-006"
	r007 = "CO-007"
	r008 = "CO-008"
	r009 = "CO-009"
	r010 = "CO-010"
	r020 = "CO-020"
	r021 = "CO-021"
	r022 = "CO-022"
	r023 = "CO-023"
	r024 = "CO-024"
	r025 = "CO-025"
	r026 = "CO-026"
	// r006b is CO-006's second part (a write at rest naming another
	// version than versions reports): its problems follow the first
	// part's.
	r006b = "CO-006 at rest"
)

// coJudging is the CO rules over a timeline read so far.
type coJudging struct {
	c     Config
	start time.Time
	procs judge.Processes
	// windows are the operators' perturbation windows alone (perturbed.go).
	windows judge.Processes
	pos     int
	comps   map[string]*component
	// The conditions' rules (CO-020 on) judge the operator's writes in
	// timeline order, whatever their component.
	valid, capital, terse, sentence, detailed, explained, camel judge.Findings
	// objects are the ClusterOperators the operator wrote, in order, and
	// which of Failing and Degraded each used (CO-024).
	objects []timeline.ObjectRef
	uses    map[timeline.ObjectRef][]string
	took    map[string]*judge.Latencies
}

func openJudging(c Config, start time.Time) *coJudging {
	return &coJudging{c: c, start: start, procs: judge.Processes{}, windows: judge.Processes{}, comps: map[string]*component{}, uses: map[timeline.ObjectRef][]string{},
		took: map[string]*judge.Latencies{}}
}

// latency is the reactions rule id measured.
func (g *coJudging) latency(id string) *judge.Latencies {
	if g.took[id] == nil {
		g.took[id] = &judge.Latencies{}
	}
	return g.took[id]
}

// off cites an instant as the rules do (judge.Judging.Offset).
func (g *coJudging) off(t time.Time) string { return judge.OffsetOf(t.Sub(g.start)) }

func (g *coJudging) get(name string) *component {
	if g.comps[name] == nil {
		g.comps[name] = newComponent(name)
	}
	return g.comps[name]
}

// Read takes the next event.
func (g *coJudging) Read(e timeline.Event) {
	pos := g.pos
	g.pos++
	g.tick(e.Time)
	o := e.Object
	if o.Kind == timeline.KindProcess && o.Group == "" {
		g.procs.Note(e, pos)
		if perturbation(e) {
			g.windows.Note(e, pos)
		}
		return
	}
	switch {
	case o.Kind == kindClusterOperator && o.Group == configGroup && e.IsWrite():
		x := g.get(o.Name)
		g.status(x, x.noteStatus(e, pos, g.c.Tolerance))
	case (o.Kind == kindDeployment || o.Kind == kindDaemonSet) && o.Group == appsGroup && o.Namespace != "":
		x := g.get(o.Namespace)
		if e.Role == RoleOperator && e.Verb != timeline.VerbDelete && e.Verb != timeline.VerbUpdateStatus {
			g.attempt(x, e)
		}
		if !e.IsWrite() {
			return
		}
		v, asked := x.world.noteWorkload(e)
		if asked && (x.cur == nil || x.cur.ended || x.cur.to != v) {
			g.begin(x, v, e, pos)
		}
		g.step(x, e, pos, func(r *rollout) bool { return v != "" && v == r.to })
	case o.Kind == kindPod && o.Group == "" && o.Namespace != "" && e.IsWrite():
		x := g.get(o.Namespace)
		ch := x.world.notePod(e)
		g.step(x, e, pos, func(r *rollout) bool { return ch.towards(r.to) })
	case o.Kind == kindConfigMap && o.Group == "" && strings.HasSuffix(o.Name, adminSuffix) &&
		o.Namespace == strings.TrimSuffix(o.Name, adminSuffix) && e.IsWrite():
		x := g.get(o.Namespace)
		if text, changed := x.blockerAfter(e); changed {
			g.block(x, blocker{ev: e, text: text})
		}
	}
}

// tick judges the deadlines an event at now has passed.
func (g *coJudging) tick(now time.Time) {
	for _, x := range g.comps {
		g.settleVersionMoves(x, now, false)
		g.settleTurns(x, now, false)
		g.settleRests(x, now, false)
		if c := x.co003; c != nil {
			c.tick(g, x, now)
		}
		if r := x.co004; r != nil {
			r.tick(g, x, now)
		}
		if s := x.co008; s != nil {
			s.tick(g, x, now)
		}
		if b := x.co009; b != nil {
			b.tick(g, x, now)
		}
		if w := x.co010; w != nil {
			w.tick(g, x, now)
		}
	}
}

// status judges a write of x's ClusterOperator.
func (g *coJudging) status(x *component, w *coWrite) {
	if w.mine() {
		g.conditions(w)
		if x.co001 == nil && availableIn(w) {
			x.co001 = &firstAvailable{w: w, before: x.world.clone()}
			x.co001.late = x.co001.before
			g.install(x, w.ev.Time)
		}
		if w.moved && w.version != "" {
			g.stamped(x, w)
			x.co002 = append(x.co002, &versionMove{w: w, before: x.world.clone()})
			x.co002[len(x.co002)-1].late = x.co002[len(x.co002)-1].before
		}
		g.progressingTurn(x, w)
		g.restWrite(x, w)
	}
	if r := x.co004; r != nil {
		r.feed(g, x, w)
	}
	if w.mine() {
		if c := x.co003; c != nil {
			c.write(g, x, w)
		}
		if s := x.co008; s != nil {
			s.write(g, x, w)
		}
		if b := x.co009; b != nil {
			b.write(w)
		}
		if win := x.co010; win != nil {
			win.write(w)
		}
	}
}

// attempt notes that x's operator wrote, or tried to write, an operand
// spec.
func (g *coJudging) attempt(x *component, e timeline.Event) {
	t := e.Time
	x.tried = &t
	for _, p := range x.co005 {
		p.tried = true
	}
}

// begin starts a rollout of x to v at e, stopping the one under way.
func (g *coJudging) begin(x *component, v string, e timeline.Event, pos int) {
	if r := x.cur; r != nil && !r.ended {
		g.over(x, r, step{ev: e, pos: pos})
	}
	r := &rollout{to: v, begin: e, beginPos: pos}
	if x.first == nil {
		x.first = r
		g.decide(x)
	}
	x.cur = r
	x.targets[v] = true
	if c := x.co003; c != nil {
		c.nextBegun(g, x)
	}
	g.noRest(x)
	for _, p := range x.co005 {
		p.rolling = true
	}
	g.reportBegun(x, r)
}

// over ends the rollout r of x at s: complete, or stopped by the next.
func (g *coJudging) over(x *component, r *rollout, s step) {
	r.over = &s
	t := s.ev.Time
	x.lastOver = &t
	if st := x.co008; st != nil {
		st.close(x)
	}
	if rep := x.co004; rep != nil {
		rep.close(g, x, s)
	}
}

// step moves x past a change of its operands' world. progressed tells
// whether it moved the rollout under way towards its version.
func (g *coJudging) step(x *component, e timeline.Event, pos int, progressed func(*rollout) bool) {
	for _, m := range []*firstAvailable{x.co001} {
		if m != nil && e.Time.Before(m.w.ev.Time.Add(g.c.Tolerance)) {
			m.late = x.world.clone()
		}
	}
	for _, m := range x.co002 {
		if e.Time.Before(m.w.ev.Time.Add(g.c.Tolerance)) {
			m.late = x.world.clone()
		}
	}
	if on := x.world.serving(); on != x.serving {
		x.serving = on
		if on {
			x.servedB = e
			if x.installed {
				g.openWindow(x, e.Time)
			}
		} else if w := x.co010; w != nil {
			w.close(g, x, e.Time)
		}
	}
	r := x.cur
	if r == nil || r.ended {
		return
	}
	s := step{ev: e, pos: pos}
	if progressed(r) {
		g.progressed(x, r, s)
	}
	if x.world.complete(r.to) {
		r.ended = true
		g.over(x, r, s)
		g.completed(x, r, s)
		g.restAwaited(x, r, s)
		if r == x.first {
			g.install(x, e.Time)
		}
	}
}

// install notes that x counts as installed from t (CO-010): its first
// rollout complete or Available=True first reported.
func (g *coJudging) install(x *component, t time.Time) {
	if x.installed {
		return
	}
	x.installed = true
	if x.serving {
		g.openWindow(x, t)
	}
}

// earlier is the earlier of a deadline and the instant it is judged at:
// the end of a timeline may come first.
func earlier(deadline, at time.Time) time.Time {
	if at.Before(deadline) {
		return at
	}
	return deadline
}

// finish judges what the end at end settles.
func (g *coJudging) finish(end time.Time) {
	g.tick(end)
	for _, x := range g.comps {
		g.settleVersionMoves(x, end, true)
		g.settleTurns(x, end, true)
		g.settleRests(x, end, true)
		if c := x.co003; c != nil {
			c.finish(g, x, end)
		}
		if r := x.co004; r != nil {
			r.finish(g, x, end)
		}
		if s := x.co008; s != nil {
			s.finish(g, x, end)
		}
		if b := x.co009; b != nil {
			b.finish(g, x, end)
		}
		if w := x.co010; w != nil {
			w.finish(g, x, end)
		}
		if r := x.co006; r != nil {
			x.co006 = nil
			x.t(r006).Skip(r.what(g, x) + ": Progressing did not come to rest after it")
		}
		g.firstAvailableJudged(x)
	}
}
