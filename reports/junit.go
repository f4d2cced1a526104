package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/visible"
)

// The JUnit XML written here is the de-facto dialect Jenkins, GitLab and
// GitHub test reporters read: <testsuites> with totals, one <testsuite> per
// run, one <testcase> per judged rule. A failed case carries a <failure>
// whose body holds everything needed to understand it without opening the
// other reports: message, spec section, measures and the evidence events.
// A run that could not complete gets an extra testcase "run" with an
// <error>, so CI shows it as broken rather than silently missing cases.
// JUnit has no warning: a warned case (Warn) is a passing testcase whose
// <system-out> begins "warning: " and holds what a failure's body would,
// so CI stays green and the reader still finds the evidence.
// Every text is written with its hidden characters made visible: XML 1.0
// cannot hold most control characters at all (encoding/xml would write
// U+FFFD for them), and a CI page shows the rest raw. A run whose subjects
// are shown redacted says so in a property of its suite, opcert.redacted.
// A run that proved nothing of its subjects (NOT JUDGED) has a testcase
// "the run judged its subjects" in <error>, saying why: its passing and
// skipped cases alone would show green. A scenario the command left out
// before anything started (Report.Skipped) is a suite of one skipped case.

type junitCounts struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Skipped  int `xml:"skipped,attr"`
}

func (c *junitCounts) add(o junitCounts) {
	c.Tests += o.Tests
	c.Failures += o.Failures
	c.Errors += o.Errors
	c.Skipped += o.Skipped
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Time   string       `xml:"time,attr"`
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes r as JUnit XML.
func WriteJUnit(w io.Writer, r *Report) error {
	doc := junitSuites{Name: r.Tool, Time: seconds(r.Wall)}
	for _, run := range r.Runs {
		s := junitSuite{Name: run.name(), Time: seconds(run.Wall)}
		class := "opcert." + shownLine(run.Scenario)
		if run.Redacted > 0 {
			s.Properties = append(s.Properties, junitProperty{Name: "opcert.redacted", Value: redact.Note(run.Redacted) + " from the subjects shown"})
		}
		if run.Reaction > 0 {
			s.Properties = append(s.Properties, junitProperty{Name: "opcert.reactionBound", Value: run.Reaction.String()})
		}
		if run.verdict() == NotJudged {
			// CI must not count it a pass: an error of its own, saying why.
			s.Errors++
			s.Cases = append(s.Cases, junitCase{Name: "the run judged its subjects", Classname: class,
				Error: &junitProblem{Message: NotJudged, Body: visible.Text(strings.Join(run.NotJudged, "\n"))}})
		}
		for _, c := range run.Cases {
			tc := junitCase{Name: shownLine(c.Rule + " " + c.Statement), Classname: class}
			message := visible.Text(c.Message)
			switch c.Status {
			case Fail:
				tc.Failure = &junitProblem{Message: message, Body: failureBody(c, run.Start)}
				s.Failures++
			case Skip:
				tc.Skipped = &junitProblem{Message: message}
				s.Skipped++
			case Warn:
				tc.SystemOut = "warning: " + failureBody(c, run.Start)
			}
			s.Cases = append(s.Cases, tc)
		}
		if run.Error != "" {
			s.Cases = append(s.Cases, junitCase{Name: "run", Classname: class,
				Error: &junitProblem{Message: visible.Text(run.Error), Body: visible.Text(run.Error)}})
			s.Errors++
		}
		s.Tests = len(s.Cases)
		doc.add(s.junitCounts)
		doc.Suites = append(doc.Suites, s)
	}
	for _, sk := range r.Skipped {
		// A suite of one skipped case: CI shows it was not played.
		s := junitSuite{Name: shownLine(sk.Scenario), Time: seconds(0), Cases: []junitCase{{Name: "played", Classname: "opcert." + shownLine(sk.Scenario),
			Skipped: &junitProblem{Message: visible.Text(sk.Why)}}}}
		s.Tests, s.Skipped = 1, 1
		doc.add(s.junitCounts)
		doc.Suites = append(doc.Suites, s)
	}
	for _, m := range r.Missing {
		// A suite of one error: CI must not count a merge without it a pass.
		s := junitSuite{Name: "shard " + m, Time: seconds(0), Cases: []junitCase{{Name: "merged", Classname: "opcert.shard",
			Error: &junitProblem{Message: "MISSING: shard " + m + " was not given to the merge"}}}}
		s.Tests, s.Errors = 1, 1
		doc.add(s.junitCounts)
		doc.Suites = append(doc.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// seconds is the JUnit time attribute: decimal seconds.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}

func failureBody(c Case, origin time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nsection: %s\n", c.Message, c.Section)
	for _, m := range c.Measures {
		fmt.Fprintf(&b, "measure %s: count=%d p50=%s p99=%s max=%s budget=%s\n",
			m.Name, m.Count, fmtDur(m.P50), fmtDur(m.P99), fmtDur(m.Max), budget(m))
	}
	if len(c.Evidence) > 0 {
		b.WriteString("evidence:\n")
		for _, e := range c.Evidence {
			b.WriteString("  " + BriefEventFrom(e, origin) + "\n")
		}
	}
	return visible.Text(b.String())
}

// budget prints a measure's budget, "-" when the rule set none.
func budget(m Measure) string {
	if m.Budget == 0 {
		return "-"
	}
	return fmtDur(m.Budget)
}
