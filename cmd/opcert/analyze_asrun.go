package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// asRun is how analyze judges a timeline of an opcert report again: as
// its run judged it, with what the report.json beside it keeps (the
// mechanism, its flags, the time scale, the tolerance, strictness, the
// run's start and end), so that analyze gives the run's verdicts.
type asRun struct {
	m       conformance.Mechanism
	judging reports.Judging
	strict  bool
	// start is the instant offsets count from, until the end after it.
	start     time.Time
	until     time.Duration
	tolerance time.Duration
	scale     float64
	// played says the run played the timeline (it is no recording): its
	// rules judged the events in time order (a real-time run files what
	// it observes as it sees it), and, when its subjects broke it, only
	// those before cut.
	played bool
	cut    time.Time
	// run is the run's report entry: a played run's subjects and how its
	// processes ended say whether it proved anything (conformance.Unproven).
	run reports.Run
}

// asRunOf is how file's run judged it, nil when file is no run's timeline
// in an opcert report (or its report names a mechanism this opcert does
// not know). Flags given to analyze that contradict the run are refused
// (exit 2), each named: a timeline judged otherwise than its run is
// judged from a copy outside its report directory.
func (o *analyzeOptions) asRunOf(cmd *cobra.Command, file string) (*asRun, error) {
	r, ok, err := inReport(cmd.Context(), file)
	if err != nil || !ok {
		return nil, err
	}
	// A report written before opcert kept how it judged: the flags given
	// here, and a real-time run's tolerance as its run had it.
	judging, tolerance := reports.Judging{Flags: o.mechanisms.given(), Strict: o.strict}, r.Tolerance
	if r.judging != nil {
		judging = *r.judging
	} else if r.Recording == nil && r.TimeScale != 0 {
		tolerance = conformance.RealtimeTolerance
	}
	set := pflag.NewFlagSet("run", pflag.ContinueOnError)
	set.SetOutput(io.Discard)
	flags := addMechanismFlags(set)
	if err := set.Parse(judging.Flags); err != nil {
		return nil, fmt.Errorf("%s: its report.json keeps mechanism flags this opcert does not take (%v): judge a copy outside the report directory with the flags you choose", file, err)
	}
	mechs, err := flags.build()
	if err != nil {
		return nil, fmt.Errorf("%s: its report.json keeps mechanism flags this opcert refuses: %w", file, err)
	}
	m := mechs[r.Mechanism]
	if m == nil {
		return nil, nil
	}
	as := &asRun{judging: judging, strict: judging.Strict, start: r.Start, scale: r.TimeScale, played: r.Recording == nil, tolerance: tolerance, run: r.Run}
	switch {
	case !as.played: // a recording watch or analyze judged
		as.until, as.tolerance = r.Reached, r.Recording.Tolerance
	case r.Stopped == reports.StopSubject: // judged before the instant it stopped at
		as.start = playedStart(as.start)
		as.cut = as.start.Add(r.Reached)
		as.until = r.Reached - time.Nanosecond
	case r.Stopped != "": // its environment stopped it: what it reached
		as.start = playedStart(as.start)
		as.until = r.Reached
	default:
		as.start = playedStart(as.start)
		as.until = (&conformance.Stage{Scale: r.TimeScale}).Scaled(r.Virtual)
	}
	if as.scale != 0 && as.scale != 1 {
		s, ok := m.(conformance.Scalable)
		if !ok {
			return nil, fmt.Errorf("%s: its run scaled its times by %g, and mechanism %s cannot scale its times", file, as.scale, m.Name())
		}
		m = s.Scaled(as.scale)
	}
	as.m = m
	if differ := o.contradictions(cmd, set, r.Mechanism, as); len(differ) > 0 {
		return nil, fmt.Errorf("%s is the timeline of a run in an opcert report, judged as its run judged it (its report.json says how), and %s: leave them out, or judge a copy of the timeline outside its report directory", file, strings.Join(differ, "; "))
	}
	return as, nil
}

// playedStart is a played run's start: the simulator's epoch in virtual time, whose
// runs keep no start.
func playedStart(start time.Time) time.Time {
	if start.IsZero() {
		return timeline.Epoch
	}
	return start
}

// contradictions are the flags given to analyze that differ from how the
// run judged: its mechanism, its end, its strictness, and each mechanism
// flag's value (run holds the run's).
func (o *analyzeOptions) contradictions(cmd *cobra.Command, run *pflag.FlagSet, mechanism string, as *asRun) []string {
	var differ []string
	if o.mechanism != "" && o.mechanism != mechanism {
		differ = append(differ, fmt.Sprintf("--mechanism %s is not its run's (%s)", o.mechanism, mechanism))
	}
	if o.until != 0 && o.until != as.until {
		differ = append(differ, fmt.Sprintf("--until %s is not its run's end (%s)", o.until, as.until))
	}
	if cmd.Flags().Changed("strict") && o.strict != as.strict {
		differ = append(differ, fmt.Sprintf("--strict=%t is not its run's (%t)", o.strict, as.strict))
	}
	o.mechanisms.set.VisitAll(func(f *pflag.Flag) {
		if g := run.Lookup(f.Name); f.Changed && g.Value.String() != f.Value.String() {
			differ = append(differ, fmt.Sprintf("--%s %s is not its run's (%s)", f.Name, f.Value, g.Value))
		}
	})
	return differ
}

// playedOrder is src as a played run judged it: in time order (stable, as
// the run sorted its events), without the events at or after cut (when
// not zero). A played run's timeline is a few thousand events: it is held.
func playedOrder(ctx context.Context, src record.Source, cut time.Time) (record.Source, error) {
	var events []timeline.Event
	for {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if cut.IsZero() || e.Time.Before(cut) {
			events = append(events, e)
		}
	}
	slices.SortStableFunc(events, func(a, b timeline.Event) int { return a.Time.Compare(b.Time) })
	return &heldSource{events: events, format: src.Format()}, nil
}

// heldSource gives held events in order.
type heldSource struct {
	events []timeline.Event
	next   int
	format string
}

func (h *heldSource) Next() (timeline.Event, error) {
	if h.next == len(h.events) {
		return timeline.Event{}, io.EOF
	}
	h.next++
	return h.events[h.next-1], nil
}

// unproven says why the played run as judged again proves nothing, as its
// run said it (conformance.Unproven): a subject under test that never
// acted or ended unasked, or no rule that could judge.
func (as *asRun) unproven(run reports.Run, events []timeline.Event) []string {
	if run.Stopped != "" {
		return run.NotJudged
	}
	run.Processes, run.Stopped = as.run.Processes, as.run.Stopped
	return conformance.Unproven(as.m, as.run.Subjects, events, run)
}

func (h *heldSource) Format() string { return h.format }
