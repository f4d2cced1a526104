package reports

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// A timeline on the page is drawn from lanes built while its events stream
// past, so that a 24-hour run of ten thousand events costs a few intervals
// per lane and never the events themselves: a condition's status over time
// is a handful of bars, writes are counted in buckets, and markers are
// capped. Lanes come from the objects the timeline names and the conditions
// they carry, and from its non-API kinds (timeline.KindProcess, KindFile,
// ...): the page knows no mechanism.

// Sizes of the drawing, in viewBox units: every lane of a run spans
// laneWidth units of time and is laneHeight units high.
const (
	laneWidth  = 1000.0
	laneHeight = 10.0
	// tickBuckets is how many buckets a lane's writes are counted in: one
	// tick at most per bucket, whatever the number of events.
	tickBuckets = 250
	// minBar is the narrowest bar drawn as its own status; narrower ones
	// (a condition flapping faster than the page can show) merge into one
	// "mixed" bar.
	minBar = 0.5
	// maxObjects is how many objects of one kind get lanes of their own;
	// the others (the hundreds of CRs of a load) share one lane of writes,
	// unless evidence cites them.
	maxObjects = 40
	// maxLanes is how many lanes one object (or one node's files) shows.
	maxLanes = 40
	// maxMarkers is how many fault and step markers a run shows; the
	// writes its evidence cites are always shown.
	maxMarkers = 300
	// minRestarts is how many (re)starts of one object make a ladder of
	// the times between them worth a chart.
	minRestarts = 6
)

// Classes of bars (CSS classes on the page). Condition statuses are
// drawn by their value (True, False, Unknown); any other status is "other".
const (
	barExists  = "exists"   // an API object, or a node file, exists
	barLocked  = "locked"   // a node lock file is held
	barUp      = "up"       // a process runs
	barDown    = "down"     // a process died
	barHung    = "hung"     // a process lost the API server
	barOK      = "ok"       // a probe succeeded
	barFailed  = "failed"   // a probe did not
	barRecord  = "record"   // a recorder watches
	barGap     = "gap"      // a recorder lost sight: a recording gap
	barMixed   = "mixed"    // changes too close together to draw apart
	barOther   = "other"    // a condition status other than True, False, Unknown
	markFault  = "fault"    // a process death or hang, an API fault, a failed expectation
	markStep   = "step"     // a scenario step after the start (an injected fault, a change)
	markPert   = "perturb"  // a perturbation: a crash, a window of what a role sees (opcert perturb)
	markCite   = "cite"     // a write a failing rule cites
	laneHeader = "writes"   // the name of an object's own lane
	otherGroup = "(others)" // the key of a kind's shared lane
)

// bar is a stretch of one state on a lane, in viewBox units.
type bar struct {
	from, to float64
	class    string
}

// track follows one lane's state and keeps its bars.
type track struct {
	bars  []bar
	cur   string
	since float64
	// spent is how long (in units) the lane spent in each class.
	spent map[string]float64
}

func (t *track) set(x float64, class string) {
	if class == t.cur {
		return
	}
	t.end(x)
	t.cur, t.since = class, x
}

// end closes the current bar at x.
func (t *track) end(x float64) {
	if t.cur == "" || x <= t.since {
		t.cur = ""
		return
	}
	b := bar{t.since, x, t.cur}
	t.cur = ""
	if t.spent == nil {
		t.spent = map[string]float64{}
	}
	t.spent[b.class] += b.to - b.from
	n := len(t.bars)
	if b.to-b.from < minBar {
		if n > 0 && t.bars[n-1].class == barMixed && t.bars[n-1].to >= b.from-minBar {
			t.bars[n-1].to = b.to
			return
		}
		b.class = barMixed
	}
	if n > 0 && t.bars[n-1].class == b.class && t.bars[n-1].to == b.from {
		t.bars[n-1].to = b.to
		return
	}
	t.bars = append(t.bars, b)
}

// lane is one row of a timeline: a condition of an object, a node file,
// or an object's own row.
type lane struct {
	name string
	track
}

// marker is a point on an object's row worth pointing at.
type marker struct {
	x     float64
	class string
	title string
	href  string // the evidence it belongs to, for a cited write
}

// group is one object's rows: its own (existence or state, and a tick per
// bucket with writes) and one per condition (or per file of a node).
type group struct {
	kind, key, label string
	head             track
	ticks            [tickBuckets]int32
	events           int
	lanes            []*lane
	byName           map[string]*lane
	dropped          int // lanes beyond maxLanes
	markers          []marker
	cited            bool
	shared           bool // the objects of a kind beyond maxObjects: writes only
	faulted          bool
	starts           []time.Time // (re)starts, for the ladder
}

func (g *group) lane(name string) *lane {
	if l, ok := g.byName[name]; ok {
		return l
	}
	if len(g.lanes) >= maxLanes {
		g.dropped++
		g.byName[name] = nil
		return nil
	}
	l := &lane{name: name}
	g.lanes = append(g.lanes, l)
	g.byName[name] = l
	return l
}

// kindLanes are the groups of one kind, in order of first appearance.
type kindLanes struct {
	kind   string
	groups []*group
	others int // objects merged into the shared group
}

// drawing is a run's timeline as the page draws it.
type drawing struct {
	origin  time.Time
	span    time.Duration
	kinds   []*kindLanes
	byKind  map[string]*kindLanes
	byKey   map[string]*group
	markers int // fault and step markers drawn
	skipped int // fault and step markers left out (maxMarkers)
	events  int
}

func newDrawing(origin time.Time, span time.Duration) *drawing {
	return &drawing{origin: origin, span: max(span, time.Second),
		byKind: map[string]*kindLanes{}, byKey: map[string]*group{}}
}

func (d *drawing) x(t time.Time) float64 {
	x := float64(t.Sub(d.origin)) / float64(d.span) * laneWidth
	return min(max(x, 0), laneWidth)
}

// groupKey is what an event's row is: its object, or for a node file the
// node (its files are the lanes); an event on no object (evidence written
// by hand, a rule's own) has a row of its own.
func groupKey(o timeline.ObjectRef) (key, label string) {
	if o == (timeline.ObjectRef{}) {
		return "/", "no object"
	}
	if o.Kind == timeline.KindFile && o.Group == "" {
		return "File/" + o.Namespace, "files of node " + o.Namespace
	}
	key = o.Kind + "." + o.Group + "/" + o.Namespace + "/" + o.Name
	label = o.Name
	if o.Namespace != "" {
		label = o.Namespace + "/" + o.Name
	}
	return key, label
}

// group finds or makes the row of o; cited objects always get one of
// their own.
func (d *drawing) group(o timeline.ObjectRef, cited map[string]bool) *group {
	key, label := groupKey(o)
	if g, ok := d.byKey[key]; ok {
		return g
	}
	k := d.byKind[o.Kind]
	if k == nil {
		k = &kindLanes{kind: cmp.Or(o.Kind, "Events")}
		d.byKind[o.Kind] = k
		d.kinds = append(d.kinds, k)
	}
	if len(k.groups) >= maxObjects && !cited[key] {
		k.others++
		shared := o.Kind + "/" + otherGroup
		g, ok := d.byKey[shared]
		if !ok {
			g = &group{kind: o.Kind, key: shared, byName: map[string]*lane{}, shared: true}
			k.groups = append(k.groups, g)
			d.byKey[shared] = g
		}
		d.byKey[key] = g
		return g
	}
	g := &group{kind: o.Kind, key: key, label: label, byName: map[string]*lane{}, cited: cited[key]}
	k.groups = append(k.groups, g)
	d.byKey[key] = g
	return g
}

func isNonAPI(kind string) bool {
	switch kind {
	case timeline.KindProcess, timeline.KindFile, timeline.KindProbe, timeline.KindOperand, timeline.KindStep, timeline.KindRecording:
		return true
	}
	return false
}

// add files one event.
func (d *drawing) add(e timeline.Event, cited map[string]bool) {
	d.events++
	g := d.group(e.Object, cited)
	x := d.x(e.Time)
	g.events++
	g.ticks[min(int(x/laneWidth*tickBuckets), tickBuckets-1)]++
	api := e.Object.Group != "" || !isNonAPI(e.Object.Kind)
	switch {
	case g.shared:
		// Writes counted, states not drawn: they are many objects'.
	case api && e.IsWrite():
		if e.Verb != timeline.VerbCreate && g.head.cur == "" && len(g.head.bars) == 0 {
			// Written before it was created in the timeline: it existed
			// before the recording or the run began.
			g.head.set(0, barExists)
		}
		if e.Verb == timeline.VerbDelete {
			g.head.set(x, "")
			for _, l := range g.lanes {
				l.set(x, "")
			}
		} else {
			if e.Verb == timeline.VerbCreate {
				g.starts = append(g.starts, e.Time)
			}
			g.head.set(x, barExists)
		}
		d.conditions(g, x, e.Conditions)
	case api:
		// An expectation, a refused write: markers only.
	case e.Object.Kind == timeline.KindProcess:
		switch e.Verb {
		case timeline.VerbStart:
			g.starts = append(g.starts, e.Time)
			g.head.set(x, barUp)
		case timeline.VerbKill:
			g.head.set(x, barDown)
		case timeline.VerbHang:
			g.head.set(x, barHung)
		case timeline.VerbReconnect:
			g.head.set(x, barUp)
		}
	case e.Object.Kind == timeline.KindFile:
		d.file(g, x, e)
	case e.Object.Kind == timeline.KindProbe:
		g.head.set(x, map[bool]string{false: barOK, true: barFailed}[e.Failed])
	case e.Object.Kind == timeline.KindOperand:
		d.conditions(g, x, e.Conditions)
	case e.Object.Kind == timeline.KindRecording:
		switch e.Verb {
		case timeline.VerbRecord, timeline.VerbResumed:
			g.head.set(x, barRecord)
		case timeline.VerbLost:
			g.head.set(x, barGap)
		case timeline.VerbStop:
			g.head.set(x, "")
		}
	}
	if class := markOf(e, d.origin); class != "" {
		if class == markFault || class == markPert {
			g.faulted = true
		}
		if d.markers < maxMarkers {
			d.markers++
			g.markers = append(g.markers, marker{x: x, class: class, title: BriefEventFrom(e, d.origin)})
		} else {
			d.skipped++
		}
	}
}

// markOf says whether an event is marked, and how: a perturbation's
// crash or window is one; a process's death or hang, the start of an API
// fault on its calls and a failed expectation are faults; what the
// scenario did after the start (the world it builds at the start is no
// news) is a step.
func markOf(e timeline.Event, origin time.Time) string {
	switch {
	case e.Object.Kind == timeline.KindProcess && strings.HasPrefix(e.Detail, timeline.PerturbationDetail) && e.Verb != timeline.VerbClear:
		return markPert
	case e.Object.Kind == timeline.KindProcess && e.Object.Group == "" && (e.Verb == timeline.VerbKill || e.Verb == timeline.VerbHang || e.Verb == timeline.VerbFault):
		return markFault
	case e.Verb == timeline.VerbExpect && e.Failed:
		return markFault
	case e.Role == timeline.RoleScenario && e.Verb != timeline.VerbExpect && e.Time.After(origin):
		return markStep
	}
	return ""
}

// conditions moves the condition lanes of g to what a write left.
func (d *drawing) conditions(g *group, x float64, changes []timeline.ConditionChange) {
	for _, c := range changes {
		l := g.lane(c.Type)
		if l == nil {
			continue
		}
		if c.Before != nil && l.cur == "" && len(l.bars) == 0 {
			l.set(0, statusClass(c.Before.Status)) // it held before the timeline began
		}
		if c.After == nil {
			l.set(x, "")
			continue
		}
		l.set(x, statusClass(c.After.Status))
	}
}

func statusClass(status string) string {
	switch status {
	case "True", "False", "Unknown":
		return status
	}
	return barOther
}

// file moves a node file's lane: written files exist until removed or
// renamed away, lock files are held until unlocked.
func (d *drawing) file(g *group, x float64, e timeline.Event) {
	l := g.lane(e.Object.Name)
	switch e.Verb {
	case timeline.VerbWrite, timeline.VerbSymlink:
		if l != nil {
			l.set(x, barExists)
		}
	case timeline.VerbRename:
		if l != nil {
			l.set(x, "")
		}
		if t := g.lane(e.Target); t != nil {
			t.set(x, barExists)
		}
	case timeline.VerbRemove:
		// A tree's removal ends every file under it.
		for _, f := range g.lanes {
			if f.name == e.Object.Name || len(f.name) > len(e.Object.Name) && f.name[:len(e.Object.Name)+1] == e.Object.Name+"/" {
				f.set(x, "")
			}
		}
	case timeline.VerbLock:
		if l != nil {
			l.set(x, barLocked)
		}
	case timeline.VerbUnlock:
		if l != nil {
			l.set(x, "")
		}
	}
}

// finish closes every bar at the run's end and orders each object's lanes
// by name, so that a page reads the same whichever condition came first.
func (d *drawing) finish() {
	for _, k := range d.kinds {
		for _, g := range k.groups {
			g.head.end(laneWidth)
			for _, l := range g.lanes {
				l.end(laneWidth)
			}
			slices.SortStableFunc(g.lanes, func(a, b *lane) int { return cmp.Compare(a.name, b.name) })
		}
	}
}

// cite puts the markers of a failing case's evidence on the rows of the
// objects it names, each a link to that evidence.
func (d *drawing) cite(e timeline.Event, href string) {
	key, _ := groupKey(e.Object)
	g := d.byKey[key]
	if g == nil {
		g = d.group(e.Object, map[string]bool{key: true})
	}
	g.cited = true
	g.markers = append(g.markers, marker{x: d.x(e.Time), class: markCite, title: BriefEventFrom(e, d.origin) + diffText(e), href: href})
}

// ladder is the time between an object's successive (re)starts: a
// back-off shows as rising bars.
func (g *group) ladder() []time.Duration {
	if len(g.starts) < minRestarts || g.label == "" {
		return nil
	}
	gaps := make([]time.Duration, len(g.starts)-1)
	for i := range gaps {
		gaps[i] = g.starts[i+1].Sub(g.starts[i])
	}
	return gaps
}
