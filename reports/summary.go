package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteSummary writes a compact plain-text table for the terminal: one line
// per run, then one line per failed case or broken run naming what failed
// and why, one per warned case (counted apart: warnings fail nothing), then
// the totals. It is what a person reads first after
// `opcert run`, so it points at the failures and leaves the evidence to the
// other reports. Terminal write errors are not actionable and are ignored.
func WriteSummary(w io.Writer, r *Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tSUBJECTS\tVERDICT\tJUDGED\tPASS\tWARN\tFAIL\tSKIP\tVIRTUAL\tWALL\tSPEED-UP\tAPI CALLS")
	var pass, warn, fail, skip, broken, judged, rules int
	for _, run := range r.Runs {
		p, wa, f, s := run.counts()
		pass, warn, fail, skip = pass+p, warn+wa, fail+f, skip+s
		if run.Error != "" {
			broken++
		}
		j, n := run.judged()
		judged, rules = judged+j, rules+n
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%d\n", shownLine(run.Scenario), run.subjects(), run.verdict(),
			j, n, p, wa, f, s, fmtDur(run.Virtual), fmtDur(run.Wall.Round(time.Millisecond)), run.speedup(), run.APICalls)
	}
	tw.Flush()
	for _, run := range r.Runs {
		if run.Error != "" {
			fmt.Fprintf(w, "ERROR run %s: %s\n", run.name(), shownLine(run.Error))
		}
		if run.verdict() == NotJudged {
			for _, why := range run.NotJudged {
				fmt.Fprintf(w, "NOT JUDGED %s: %s\n", run.name(), shownLine(why))
			}
		}
		if r := run.Recording; r != nil && len(r.Writers) > 0 {
			fmt.Fprintf(w, "WRITERS %s: %s\n", run.name(), shownLine(r.writers()))
		}
		for _, c := range run.Cases {
			switch c.Status {
			case Fail:
				fmt.Fprintf(w, "FAIL %s %s: %s\n", c.Rule, run.name(), shownLine(c.Message))
			case Warn:
				fmt.Fprintf(w, "WARN %s %s: %s\n", c.Rule, run.name(), shownLine(c.Message))
			}
		}
	}
	for _, line := range SkippedLines(r.Skipped) {
		fmt.Fprintf(w, "SKIPPED %s\n", line)
	}
	for _, m := range r.Missing {
		fmt.Fprintf(w, "MISSING shard %s: none of its runs was merged\n", m)
	}
	verdict := r.Verdict()
	fmt.Fprintf(w, "%s: %d runs (%d could not complete), %d of %d rules judged: %d passed, %d warned, %d failed, %d skipped in %s%s\n",
		verdict, len(r.Runs), broken, judged, rules, pass, warn, fail, skip, fmtDur(r.Wall.Round(time.Millisecond)), r.skippedNote())
}

// skippedNote says how many scenarios were left out, if any.
func (r *Report) skippedNote() string {
	if len(r.Skipped) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d scenarios not played (SKIPPED above)", len(r.Skipped))
}

// SkippedLines says which scenarios were left out and why, one line per
// reason and mechanism (a mechanism that cannot scale leaves out all its
// built-ins, for one reason), naming the first few scenarios of each.
func SkippedLines(skipped []Skipped) []string {
	const named = 3
	type group struct {
		mechanism, why string
		scenarios      []string
	}
	var groups []*group
	at := map[[2]string]*group{}
	for _, s := range skipped {
		k := [2]string{s.Mechanism, s.Why}
		if at[k] == nil {
			at[k] = &group{mechanism: s.Mechanism, why: s.Why}
			groups = append(groups, at[k])
		}
		at[k].scenarios = append(at[k].scenarios, s.Scenario)
	}
	var out []string
	for _, g := range groups {
		names := strings.Join(g.scenarios[:min(named, len(g.scenarios))], ", ")
		if len(g.scenarios) > named {
			names += fmt.Sprintf(" and %d more", len(g.scenarios)-named)
		}
		what := fmt.Sprintf("scenario %s (%s)", names, g.mechanism)
		if len(g.scenarios) > 1 {
			what = fmt.Sprintf("%d scenarios of %s (%s)", len(g.scenarios), g.mechanism, names)
		}
		out = append(out, shownLine(what+": "+g.why))
	}
	return out
}

// Headline is one line on a finished run, for progress output: its name,
// verdict, virtual and wall time, speed-up and API calls.
func (run Run) Headline() string {
	return fmt.Sprintf("%s %s: %s virtual in %s (%s), %d API calls", run.name(), run.verdict(),
		run.reached(), fmtDur(run.Wall.Round(time.Millisecond)), run.speedup(), run.APICalls)
}

// reached is the virtual time a run covered: its duration, or for a run
// that stopped early how far it was judged.
func (run Run) reached() string {
	if run.Stopped == "" {
		return fmtDur(run.Virtual)
	}
	return fmt.Sprintf("stopped (%s) at %s of %s", run.Stopped, fmtDur(run.Reached), fmtDur(run.Virtual))
}
