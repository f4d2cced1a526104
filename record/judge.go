package record

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Judgement says how to judge a captured or recorded timeline.
type Judgement struct {
	// Name is the run's name in the report (the file, or "watch").
	Name string
	// Source says where the timeline came from, for the report.
	Source string
	// Start, if not zero, is the instant offsets count from, and Until
	// with them: a played run's origin (its report says it); zero takes
	// the first event's time.
	Start time.Time
	// Until, if not zero, is how far the timeline covers, counted from
	// Start (or its first event): a played run's end; zero takes its last
	// event.
	Until time.Duration
	// Tee, if set, is given every event as it is read (to keep a copy).
	Tee func(timeline.Event) error
	// Tolerance, if set, is the recording's tolerance measured ahead
	// (timeline.ScanLag): the rules are given it from the first event, so
	// a mechanism may judge as the events pass, keeping none of them
	// (judge.Stream.Tolerate).
	Tolerance *time.Duration
	// AfterRead, if set, is called once every event is read, before the
	// rules run: what is alive then is what judging holds of the timeline
	// (the benchmark measures it there).
	AfterRead func()
	// Strict judges strictly (judge.Judging.Strict): the failures of
	// convention rules fail instead of warning.
	Strict bool
	// Played says the timeline is a run's that opcert played (analyze of
	// a run's timeline): its writers are the run's actors, whose acting the
	// run judged, so the recording's required roles are not asked of it.
	Played bool
	// Ongoing says the recording goes on (a watch judging what it has so
	// far): a gap open at its end may yet close, so it is a gap like any
	// other. Otherwise a timeline that ends in a gap makes the run the
	// environment's fault (endedLost).
	Ongoing bool
}

// Judged is what judges a recording of one mechanism: its name and
// reaction bound, as the report states them, its rules, and what it needs
// recorded (nil: nothing is required of the recording's writers).
type Judged struct {
	// Mechanism is the mechanism's name, as the report states it.
	Mechanism string
	// Reaction is the mechanism's reaction bound, as the report states it.
	Reaction time.Duration
	// Book is the mechanism's rulebook.
	Book judge.Rulebook
	// Recording is what the mechanism needs recorded; nil: nothing.
	Recording *Recording
}

// checkEvery is how many events pass between two looks at ctx.
const checkEvery = 4096

// Judge reads src to its end and judges it with m's rules, one event at a
// time (judge.Stream): memory is what m's online facts keep. The
// run it returns starts at the first event (its offsets count from
// there), lasts to Until or the last event, and says how the timeline was
// recorded: its lag, the tolerance the rules were given, its gaps. A
// timeline that ends in a gap never resumed is the environment's fault
// (endedLost), unless the recording goes on (j.Ongoing).
func Judge(ctx context.Context, src Source, m Judged, j Judgement) (reports.Run, error) {
	start := time.Now()
	var writers writerTally
	s := judge.NewStream(m.Book)
	s.Strict, s.Start = j.Strict, j.Start
	if j.Tolerance != nil {
		s.Tolerate(*j.Tolerance)
	}
	for n := 0; ; n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return reports.Run{}, context.Cause(ctx)
		}
		e, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return reports.Run{}, err
		}
		s.Add(e)
		if e.IsWrite() && e.Actor != RecorderActor { // what was there when the recording began is no one's
			writers.add(e)
		}
		if j.Tee != nil {
			if err := j.Tee(e); err != nil {
				return reports.Run{}, err
			}
		}
	}
	if j.AfterRead != nil {
		j.AfterRead()
	}
	end := s.Last()
	if j.Until > 0 {
		end = s.Start.Add(j.Until)
	}
	cases, gaps := s.Judge(end)
	rec := &reports.Recording{Source: j.Source, Format: src.Format(), Events: s.Count(), From: s.Start, To: end, Tolerance: s.Tolerance()}
	if l := s.Lag(); l.Count() > 0 {
		rec.Lag = &reports.Lag{Count: l.Count(), P50: l.Quantile(0.5), P99: l.Quantile(0.99), Min: l.Min(), Max: l.Max()}
	}
	for _, g := range gaps {
		rec.Gaps = append(rec.Gaps, reports.Gap{From: g.From, To: g.To, Why: g.Why, Open: g.Open})
	}
	rec.Writers = writers.list()
	run := reports.Run{Scenario: j.Name, Mechanism: m.Mechanism, Description: "judged from " + j.Source, Subjects: map[string]string{},
		Virtual: end.Sub(s.Start), Reached: end.Sub(s.Start), Wall: time.Since(start),
		Start: s.Start, Recording: rec, Cases: cases, Reaction: m.Reaction}
	if n := len(gaps); n > 0 && gaps[n-1].Open && !gaps[n-1].From.After(end) && !j.Ongoing {
		endedLost(&run, gaps[n-1])
	}
	if run.Stopped == "" {
		run.NotJudged = unproven(m, j.Played, rec, cases)
	}
	return run, nil
}

// unproven says why a recording proves nothing, as conformance does of a
// played run: a role the mechanism requires never wrote in it (stale's
// detector: its writes were under a manager not taken for it, or there
// was none), or nothing the rules look for happened in it (a
// ClusterOperator never seen).
func unproven(m Judged, played bool, rec *reports.Recording, cases []reports.Case) []string {
	var why []string
	if m.Recording != nil && !played {
		for _, role := range m.Recording.Required {
			if !slices.ContainsFunc(rec.Writers, func(w reports.Writer) bool { return w.Role == role }) {
				why = append(why, absent(role, m.Recording.Hint, rec.Writers))
			}
		}
	}
	if s := judge.NothingJudged(cases); s != "" {
		why = append(why, s)
	}
	return why
}

// absent says that no write of role was seen, and who wrote instead.
func absent(role, hint string, writers []reports.Writer) string {
	var seen []string
	for _, w := range writers {
		seen = append(seen, fmt.Sprintf("%s as %s", w.Name, cmp.Or(w.Role, "no role")))
	}
	who := "nobody wrote"
	if len(seen) > 0 {
		who = "writers seen: " + strings.Join(seen, ", ")
	}
	say := fmt.Sprintf("no write by the %s was seen, so no rule saw it do anything (%s)", role, who)
	if hint != "" {
		say += "; if it writes under another field manager, " + hint
	}
	return say
}

// writerTally counts the writes of each writer of a timeline, with the
// role they were put down to.
type writerTally map[[2]string]int64

func (t *writerTally) add(e timeline.Event) {
	if *t == nil {
		*t = writerTally{}
	}
	(*t)[[2]string{e.Actor, e.Role}]++
}

// list is the tally by writer name, then role.
func (t writerTally) list() []reports.Writer {
	var out []reports.Writer
	for k, n := range t {
		out = append(out, reports.Writer{Name: k[0], Role: k[1], Writes: n})
	}
	slices.SortFunc(out, func(a, b reports.Writer) int { return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Role, b.Role)) })
	return out
}

// endedLost makes run, whose timeline ended in the recording gap g, the
// environment's fault: the recorder lost the cluster (or its rights to
// it) and never reached it again, so nobody saw how the span ended. The
// run is ERROR (reports.StopEnvironment), its Error saying what was lost
// when; a rule that passed judged only what came before, so it is not
// judged, saying why. A failure stands: it was seen outside every gap
// (judge excuses the rest). watch and analyze alike: a watch that
// ends having lost its cluster, or the timeline it left, judged again.
func endedLost(run *reports.Run, g judge.Gap) {
	at := judge.OffsetOf(g.From.Sub(run.Start).Round(time.Millisecond))
	run.Stopped = reports.StopEnvironment
	run.Error = fmt.Sprintf("the recording lost %s at %s (%s) and never reached it again before it ended", g.Lost, at, g.Why)
	for i := range run.Cases {
		c := &run.Cases[i]
		if c.Status == reports.Pass {
			c.Status, c.Message = reports.Skip, fmt.Sprintf("not judged from %s to the end: the recording lost %s then and never reached the cluster again (the run's error says why); before it: %s", at, g.Lost, c.Message)
		}
	}
}
