package conformance

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// Exploring perturbations (opcert perturb): a scenario is played once as
// it is, and the points at which a perturbation can change what a role
// sees are read off its timeline; each point is one scenario more, the
// scenario with one perturb step, played and judged by the
// rules and by convergence (judge.Convergence) against the unperturbed
// run. Every point is a reproducible scenario: a failure is written as a
// file that replays it, and shrunk.
//
// The points, for each role perturbed (windows of Window, API errors of
// ErrorWindow):
//   - crash: after each of the role's writes in the unperturbed run (the
//     k-th write from the start, whoever of the role makes it; the ones
//     of one reconcile are the crashes between two writes);
//   - lostEvents, lateEvents, staleReads: a window from each instant at
//     which another actor wrote (what the role is told of);
//   - conflicts (409 on the role's writes) and errors (500 on them): a
//     window from each instant at which the role wrote.
//
// Windows that would not end the reaction bound before the scenario ends
// are left out: convergence could not be judged.

// The kinds of point opcert perturb explores besides the perturb step's
// own (scenarios.PerturbCrash...).
const (
	PointConflicts = "conflicts"
	PointErrors    = "errors"
)

// PointKinds are every kind of point, in the order they are explored.
var PointKinds = []string{scenarios.PerturbCrash, scenarios.PerturbLostEvents, scenarios.PerturbLateEvents, scenarios.PerturbStaleReads, PointConflicts, PointErrors}

// Perturbing says which perturbations are explored, and how much.
type Perturbing struct {
	// Roles are the roles perturbed; none: every role a subject plays
	// whose calls opcert plays (the mechanism's roles its scenario kind
	// names), not the world's own (a kubelet, the workload controllers).
	Roles []string
	// Kinds are the kinds of point explored (PointKinds); none: all.
	Kinds []string
	// Budget bounds the perturbed runs of each scenario (every point: 0
	// to Explore, which WithDefaults reads as DefaultPerturbing's).
	Budget int
	// Seed picks the points played when there are more than Budget (0:
	// evenly spaced).
	Seed uint64
	// Window is how long a window of lost, late or stale notifications
	// lasts.
	Window time.Duration
	// ErrorWindow is how long a window of API errors lasts: shorter than
	// the reaction bound, as a faithful operator backs off its retries,
	// doubling the wait (controller-runtime's default), and after a
	// window of W its next try comes up to W later.
	ErrorWindow time.Duration
	// Delay is how late a lateEvents window's notifications come.
	Delay time.Duration
	// Lag is how old what a staleReads window's reads answer is.
	Lag time.Duration
	// ShrinkRuns bounds the runs spent shrinking each failure.
	ShrinkRuns int
}

// DefaultPerturbing is what opcert perturb explores without flags: a
// window of a minute (twice the usual reaction bound: long enough to miss
// a reaction, short beside a scenario), notifications a reaction bound
// late, reads a little more stale.
var DefaultPerturbing = Perturbing{Budget: 40, Window: time.Minute, ErrorWindow: 15 * time.Second, Delay: 20 * time.Second, Lag: 30 * time.Second, ShrinkRuns: 100}

// WithDefaults is p with DefaultPerturbing's value in each zero field.
func (p Perturbing) WithDefaults() Perturbing {
	d := DefaultPerturbing
	for _, f := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&p.Window, d.Window}, {&p.ErrorWindow, d.ErrorWindow}, {&p.Delay, d.Delay}, {&p.Lag, d.Lag}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if p.Budget == 0 {
		p.Budget = d.Budget
	}
	if p.ShrinkRuns == 0 {
		p.ShrinkRuns = d.ShrinkRuns
	}
	return p
}

// ExploreOptions says what Explore perturbs, how, and how much.
type ExploreOptions struct {
	Perturbing
	// Dir is where runs may keep files (Options.Dir).
	Dir string
	// Strict judges every run strictly (Options.Strict).
	Strict bool
	// Stem starts every run's prefix and every point's scenario name
	// ("p" if empty): two Explore calls on one API server need different
	// stems.
	Stem string
	// Ran, if set, is told of each run as it ends, with its timeline: the
	// unperturbed one (point nil), the points', and the shrinking's
	// candidates (shrink).
	Ran func(sc *scenarios.Scenario, point *Point, run reports.Run, tl *timeline.Timeline, shrink bool)
}

// Point is one perturbation of a scenario: the step added to it.
type Point struct {
	// Role is the role perturbed.
	Role string
	// Kind is the kind of point (PointKinds).
	Kind string
	// Step is the step added: a perturb step.
	Step scenarios.Step
}

// String says what the point does, and when.
func (p Point) String() string {
	if p.Step.Perturb.Crash != nil {
		return p.Step.Perturb.String()
	}
	return fmt.Sprintf("%s at +%v", p.Step.Perturb, p.Step.Time)
}

// Exploration is what Explore found for one scenario.
type Exploration struct {
	// Scenario is the scenario explored.
	Scenario *scenarios.Scenario
	// Unperturbed is its run as it is.
	Unperturbed reports.Run
	// Points are the points found.
	Points int
	// Played are the ones played (Budget).
	Played int
	// Refused are the ones played whose scenario could not go on as
	// written (a role its mechanism cannot restart, a scripted write of
	// the role refused): no verdict on the subjects.
	Refused int
	// Runs are the points' runs, in the order played.
	Runs []reports.Run
	// Findings are the failures, the first of each failure and kind, shrunk.
	Findings []*Finding
}

// Explore plays sc unperturbed with cast, then each perturbation point
// within the budget (all of them for a Budget of 0), and shrinks the first failure of each failure and
// kind of point. It returns an error when the environment or ctx stopped
// a run.
func Explore(ctx context.Context, api client.Client, m Mechanism, cast Cast, sc *scenarios.Scenario, o ExploreOptions) (*Exploration, error) {
	n, stem := 0, o.Stem
	if stem == "" {
		stem = "p"
	}
	prefix := func() string { n++; return stem + strconv.FormatInt(int64(n), 36) + "-" }
	opts := func() Options { return Options{Prefix: prefix(), Dir: o.Dir, Strict: o.Strict} }
	stopped := func(sc *scenarios.Scenario, run reports.Run) error {
		switch run.Stopped {
		case reports.StopEnvironment, reports.StopInterrupted:
			return fmt.Errorf("%s: %s", sc.Name, run.Error)
		}
		return nil
	}
	base := sc.Unperturbed()
	brun, btl := play(ctx, api, m, base, cast, opts())
	if o.Ran != nil {
		o.Ran(base, nil, brun, btl, false)
	}
	if err := stopped(base, brun); err != nil {
		return nil, err
	}
	x := &Exploration{Scenario: sc, Unperturbed: brun}
	if brun.Error != "" {
		return x, nil // nothing to compare with: the report says why
	}
	points := o.points(m, base, brun, btl.Events())
	x.Points = len(points)
	points = o.pick(points)
	failed, uncrashable := map[string]bool{}, map[string]bool{}
	for i, p := range points {
		if p.Kind == scenarios.PerturbCrash && uncrashable[p.Role] {
			continue
		}
		psc, err := withPoint(base, p, pointName(sc.Name, stem, i+1))
		if err != nil {
			// Its window overlaps one of the scenario's own on the role.
			continue
		}
		run, tl := playAgainst(ctx, api, m, psc, cast, opts(), brun, btl)
		x.Played++
		if o.Ran != nil {
			o.Ran(psc, &p, run, tl, false)
		}
		if err := stopped(psc, run); err != nil {
			return x, err
		}
		x.Runs = append(x.Runs, run)
		if run.Stopped == reports.StopScenario {
			// The point cannot be played as written (a role its
			// mechanism cannot restart, a scripted write of the role
			// refused): no verdict on the subjects.
			x.Refused++
			uncrashable[p.Role] = uncrashable[p.Role] || p.Kind == scenarios.PerturbCrash
			continue
		}
		failure := firstFailure(run)
		if failure == "" || failed[failure+" "+p.Kind] {
			continue
		}
		failed[failure+" "+p.Kind] = true
		f, err := o.shrink(ctx, api, m, cast, psc, p, run, tl, failure, opts)
		if f != nil {
			x.Findings = append(x.Findings, f)
		}
		if err != nil {
			return x, err
		}
	}
	return x, nil
}

// playAgainst plays a perturbed scenario against an unperturbed run
// already played (Play plays both).
func playAgainst(ctx context.Context, api client.Client, m Mechanism, sc *scenarios.Scenario, cast Cast, opts Options, base reports.Run, btl *timeline.Timeline) (reports.Run, *timeline.Timeline) {
	run, tl := play(ctx, api, m, sc, cast, opts)
	for _, role := range perturbedRoles(sc) {
		run.Cases = append(run.Cases, converges(sc, role, base, btl.Events(), run, tl.Events()))
	}
	return run, tl
}

// shrink writes a failing point's scenario as a file and shrinks it while
// the same failure stays (each candidate played with its own unperturbed
// run: its steps differ).
func (o ExploreOptions) shrink(ctx context.Context, api client.Client, m Mechanism, cast Cast, sc *scenarios.Scenario, p Point, run reports.Run, tl *timeline.Timeline, failure string, opts func() Options) (*Finding, error) {
	file, err := scenarios.Encode(sc)
	if err != nil {
		return nil, err
	}
	f := &Finding{Failure: failure, Drawn: sc, DrawnFile: file, DrawnRun: run, MinimalRun: run, MinimalTL: tl, Point: p.String()}
	sh := &scenarios.Shrinking{Budget: o.ShrinkRuns, Fails: func(c *scenarios.Scenario) (bool, error) {
		po := opts()
		run, tl := playPerturbed(ctx, api, m, c, cast, po, opts().Prefix)
		if o.Ran != nil {
			o.Ran(c, &p, run, tl, true)
		}
		if run.Stopped == reports.StopEnvironment || run.Stopped == reports.StopInterrupted {
			return false, fmt.Errorf("%s: %s", c.Name, run.Error)
		}
		if !failsWith(run, failure) {
			return false, nil
		}
		f.MinimalRun, f.MinimalTL = run, tl
		return true, nil
	}}
	min, minFile, err := sh.Shrink(sc, sc.Name+"-min.yaml")
	f.ShrinkRuns = sh.Runs
	if min == nil {
		return f, err
	}
	f.Minimal, f.MinimalFile = min, minFile
	f.Minimal.Name = sc.Name + "-min"
	f.Minimal.Description = fmt.Sprintf("Shrunk by opcert perturb in %d runs from %s (%d steps over %s, %s); still fails %s.",
		sh.Runs, sc.Name, len(sc.Steps), sc.Duration.Duration, p, failure)
	if f.MinimalFile, err = scenarios.Encode(f.Minimal); err != nil {
		return f, err
	}
	f.MinimalRun.Scenario = f.Minimal.Name
	return f, err
}

// pointName names a point's scenario: the scenario's name, cut to keep
// within the format's limit, the stem and the point's number.
func pointName(scenario, stem string, n int) string {
	suffix := fmt.Sprintf("-%s-%d", stem, n)
	return strings.TrimRight(scenario[:min(len(scenario), scenarios.MaxNameLength-len(suffix))], "-") + suffix
}

// withPoint is sc with p's step, under name, as its file reads back; an
// error when the format refuses it.
func withPoint(sc *scenarios.Scenario, p Point, name string) (*scenarios.Scenario, error) {
	c := *sc
	c.Name, c.Source = name, name+".yaml"
	c.Description = fmt.Sprintf("%s, perturbed by opcert perturb: %s.", sc.Name, p)
	i, _ := slices.BinarySearchFunc(sc.Steps, p.Step.Time, func(st scenarios.Step, t time.Duration) int {
		if st.Time <= t {
			return -1 // after the steps at its instant: the world first
		}
		return 1
	})
	c.Steps = slices.Insert(slices.Clone(sc.Steps), i, p.Step)
	back, _, err := scenarios.Reread(&c, c.Source)
	return back, err
}

// points lists every point of the unperturbed run, in PointKinds order,
// each kind's by time.
func (o ExploreOptions) points(m Mechanism, sc *scenarios.Scenario, run reports.Run, events []timeline.Event) []Point {
	roles := o.Roles
	if len(roles) == 0 {
		// The roles a subject plays whose calls opcert plays: not the
		// world's own (a kubelet, the workload controllers).
		for _, r := range m.Roles() {
			if slices.Contains(scenarios.RolesOf(sc.Mechanism), r.Name) {
				roles = append(roles, r.Name)
			}
		}
	}
	end := sc.Duration.Duration - run.Reaction - run.Tolerance
	at := func(t time.Time) time.Duration { return t.Sub(runOrigin(run)) }
	var out []Point
	for _, role := range roles {
		writes := 0
		var told, wrote []time.Duration
		for _, e := range events {
			if !e.IsWrite() {
				continue
			}
			if e.Role == role {
				writes++
				wrote = append(wrote, at(e.Time))
			} else {
				told = append(told, at(e.Time))
			}
		}
		told, wrote = slices.Compact(told), slices.Compact(wrote)
		for _, kind := range PointKinds {
			if len(o.Kinds) > 0 && !slices.Contains(o.Kinds, kind) {
				continue
			}
			switch kind {
			case scenarios.PerturbCrash:
				for k := 1; k <= writes; k++ {
					out = append(out, Point{role, kind, scenarios.Step{Perturb: &scenarios.Perturb{Role: role, Crash: &scenarios.Crash{AfterWrites: k}}}})
				}
			case PointConflicts, PointErrors:
				for _, t := range wrote {
					if t+o.ErrorWindow > end {
						continue
					}
					// Writes only: a controller reads its informer's cache,
					// which an API server's errors do not reach; the run's
					// reads stand for those (a watch's map function lists,
					// and could not retry a failed list).
					e := &scenarios.Errors{On: scenarios.OnWrites, Code: 409, For: scenarios.Duration{Duration: o.ErrorWindow}}
					if kind == PointErrors {
						e.Code = 500
					}
					out = append(out, Point{role, kind, scenarios.Step{Time: t, Perturb: &scenarios.Perturb{Role: role, APIErrors: e}}})
				}
			default:
				for _, t := range told {
					if t+o.Window > end {
						continue
					}
					out = append(out, Point{role, kind, scenarios.Step{Time: t, Perturb: o.window(role, kind)}})
				}
			}
		}
	}
	return out
}

// window is a perturb step of a window kind on role.
func (o ExploreOptions) window(role, kind string) *scenarios.Perturb {
	w := &scenarios.Window{For: scenarios.Duration{Duration: o.Window}}
	p := &scenarios.Perturb{Role: role}
	switch kind {
	case scenarios.PerturbLostEvents:
		p.LostEvents = w
	case scenarios.PerturbLateEvents:
		w.Delay, p.LateEvents = &scenarios.Duration{Duration: o.Delay}, w
	case scenarios.PerturbStaleReads:
		w.Lag, p.StaleReads = &scenarios.Duration{Duration: o.Lag}, w
	}
	return p
}

// pick keeps at most Budget points: evenly spaced over the list (every
// kind keeps its share), or drawn with Seed.
func (o ExploreOptions) pick(points []Point) []Point {
	if o.Budget <= 0 || len(points) <= o.Budget {
		return points
	}
	var idx []int
	if o.Seed != 0 {
		idx = rand.New(rand.NewPCG(o.Seed, 0x9e7)).Perm(len(points))[:o.Budget]
		slices.Sort(idx)
	} else {
		for i := range o.Budget {
			idx = append(idx, i*len(points)/o.Budget)
		}
	}
	out := make([]Point, len(idx))
	for i, j := range idx {
		out[i] = points[j]
	}
	return out
}

// Summary says what an exploration played and found, in one line.
func (x *Exploration) Summary() string {
	failed := 0
	for _, r := range x.Runs {
		if r.Stopped != reports.StopScenario && firstFailure(r) != "" {
			failed++
		}
	}
	var kinds []string
	for _, f := range x.Findings {
		kinds = append(kinds, f.Failure+" ("+f.Point+")")
	}
	s := fmt.Sprintf("%s: %d of %d points played, %d failed", x.Scenario.Name, x.Played, x.Points, failed)
	if x.Refused > 0 {
		s += fmt.Sprintf(", %d could not be played as written", x.Refused)
	}
	if len(kinds) > 0 {
		s += ": " + strings.Join(kinds, "; ")
	}
	return s
}
