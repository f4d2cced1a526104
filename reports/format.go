package reports

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// fmtDur prints a duration as time.Duration does, rounded to what a reader
// can use: milliseconds from a second up (wall times measured on a real clock
// otherwise print nine digits of noise), microseconds below that. Virtual
// times are whole steps of the fake clock and are not changed by rounding.
func fmtDur(d time.Duration) string {
	switch a := d.Abs(); {
	case a >= time.Second:
		d = d.Round(time.Millisecond)
	case a >= time.Millisecond:
		d = d.Round(time.Microsecond)
	}
	return d.String()
}

// speedup is how much faster than real time a run went: virtual time over
// wall time, the figure that justifies simulating at all.
func speedup(virtual, wall time.Duration) string {
	if wall <= 0 {
		return "-"
	}
	x := float64(virtual) / float64(wall)
	if x < 10 {
		return fmt.Sprintf("%.1fx", x)
	}
	return fmt.Sprintf("%.0fx", x)
}

// speedup is the run's virtual time per wall time: of what it reached
// when it stopped early (the wall time is that part's), of its scenario's
// whole length otherwise.
func (run Run) speedup() string {
	played := run.Virtual
	if run.Stopped != "" {
		played = run.Reached
	}
	return speedup(played, run.Wall)
}

// subjects lists a run's role=subject pairs sorted by role.
func (run Run) subjects() string { return SubjectList(run.Subjects) }

// SubjectList writes role=subject pairs sorted by role, so that names built
// from them are stable across runs and diffable in CI history, on one line
// with hidden characters made visible.
func SubjectList(subjects map[string]string) string {
	roles := make([]string, 0, len(subjects))
	for role := range subjects {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for i, role := range roles {
		roles[i] = role + "=" + subjects[role]
	}
	return shownLine(strings.Join(roles, ","))
}

// name is "<scenario> [role=subject,...]": the same scenario runs once per
// set of subjects, so the scenario alone does not identify a run. It is on
// one line, hidden characters made visible.
func (run Run) name() string {
	if len(run.Subjects) == 0 {
		return shownLine(run.Scenario)
	}
	return shownLine(run.Scenario) + " [" + run.subjects() + "]"
}

// counts tallies the run's cases by verdict.
func (run Run) counts() (pass, warn, fail, skip int) {
	for _, c := range run.Cases {
		switch c.Status {
		case Pass:
			pass++
		case Warn:
			warn++
		case Fail:
			fail++
		case Skip:
			skip++
		}
	}
	return pass, warn, fail, skip
}

// verdict is ERROR or INTERRUPTED for a run its environment or a signal
// stopped (it proved nothing either way), FAIL when a case failed or the
// subjects broke the run, NOT JUDGED when it failed nothing but proved
// nothing of its subjects either (Run.NotJudged), PASS otherwise: warnings
// fail nothing.
func (run Run) verdict() string {
	switch run.Stopped {
	case StopEnvironment, StopScenario:
		return "ERROR"
	case StopInterrupted:
		return "INTERRUPTED"
	}
	if _, _, fail, _ := run.counts(); fail > 0 || run.Error != "" {
		return "FAIL"
	}
	if len(run.NotJudged) > 0 {
		return NotJudged
	}
	return "PASS"
}

// NotJudged is the verdict of a run that failed nothing and proved
// nothing (Run.NotJudged).
const NotJudged = "NOT JUDGED"

// judged counts the run's rules that gave a verdict, and its rules.
func (run Run) judged() (judged, rules int) { return Judged(run.Cases) }

// Judged counts the cases of rules that gave a verdict (not "not
// judged"), and the cases of rules: the scenario's expectations (EXPECT)
// are not a rule.
func Judged(cases []Case) (judged, rules int) {
	for _, c := range cases {
		if c.Rule == "EXPECT" {
			continue
		}
		rules++
		if c.Status != Skip {
			judged++
		}
	}
	return judged, rules
}
