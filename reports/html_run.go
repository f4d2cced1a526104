package reports

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/sim/timeline"
)

// run writes one run's section: what it was, its timeline, its charts and
// the evidence of its failed and warned cases.
func (p *page) run(i int, fsys fs.FS) {
	run := p.r.Runs[i]
	v := run.verdict()
	p.f("<section class=\"run\" id=\"run-%d\">\n<h2><span class=\"badge %s\">%s</span> %s", i+1, badge(v), v, esc(run.Scenario))
	if len(run.Subjects) > 0 {
		p.f(" <small>[%s]</small>", esc(run.subjects()))
	}
	p.f("</h2>\n<p class=\"meta\">%s · %s · %s", esc(orDash(run.Mechanism)), run.mode(p.r.Environment), esc(timesText(run)))
	if run.APICalls > 0 {
		p.f(" · %d API calls", run.APICalls)
	}
	if run.Timeline != "" {
		p.f(" · timeline <a href=\"%s\">%s</a>", esc(filepath.ToSlash(run.Timeline)), esc(filepath.ToSlash(run.Timeline)))
	}
	p.f("</p>\n")
	if run.Description != "" {
		p.f("<p>%s</p>\n", esc(run.Description))
	}
	if run.Redacted > 0 {
		p.f("<p class=\"meta\">Subjects and commands are shown with %s (the subjects ran with them).</p>\n", esc(redact.Note(run.Redacted)))
	}
	if v == NotJudged {
		p.f("<p class=\"error\"><strong>Not judged</strong>: the run failed nothing, but proved nothing of its subjects either:</p>\n<ul>\n")
		for _, why := range run.NotJudged {
			p.f("<li>%s</li>\n", esc(why))
		}
		p.f("</ul>\n")
	}
	if run.Error != "" {
		p.f("<p class=\"error\"><strong>The run could not complete</strong> (%s): %s</p>\n", esc(run.reached()), esc(run.Error))
	}
	if run.Recording != nil {
		p.recording(run.Recording)
	}
	if len(run.Processes) > 0 {
		p.f("<table><thead><tr><th>Process</th><th>Role</th><th>Command</th><th>Ended</th><th>Output</th></tr></thead><tbody>\n")
		for _, pr := range run.Processes {
			out := "-"
			if pr.Log != "" {
				out = fmt.Sprintf("<a href=\"%s\">%s</a>", esc(filepath.ToSlash(pr.Log)), esc(filepath.ToSlash(pr.Log)))
			}
			p.f("<tr><td>%s</td><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n",
				esc(pr.Name), esc(pr.Role), esc(pr.Command), esc(strings.Join(pr.Endings, "; ")), out)
		}
		p.f("</tbody></table>\n")
	}
	d, err := p.drawing(i, fsys)
	p.timeline(i, d, err)
	for j, c := range run.Cases {
		if id, ok := p.anchors[[2]int{i, j}]; ok {
			p.caseSection(id, c, run.Start)
		}
	}
	p.f("</section>\n")
}

// timesText says how long a run covered, in virtual and wall time where
// the two differ.
func timesText(run Run) string {
	s := fmtDur(run.Virtual) + " of scenario time"
	if run.mode(Environment{}) == "virtual" && run.Recording == nil {
		s = fmtDur(run.Virtual) + " of virtual time"
		if run.Wall > 0 {
			s += " played in " + fmtDur(run.Wall.Round(time.Millisecond)) + " of wall time (" + run.speedup() + ")"
		}
	} else if run.Wall > 0 {
		s += ", " + fmtDur(run.Wall.Round(time.Millisecond)) + " of wall time"
	}
	if run.Stopped != "" {
		s += ", " + run.reached()
	}
	return s
}

func (p *page) recording(r *Recording) {
	p.f("<p class=\"meta\">Recorded from %s (%s): %d events", esc(r.Source), esc(r.Format), r.Events)
	if !r.From.IsZero() {
		p.f(" from %s to %s", r.From.UTC().Format(time.RFC3339Nano), r.To.UTC().Format(time.RFC3339Nano))
	}
	p.f("; rules judged with a tolerance of %s on deadlines.</p>\n", esc(fmtDur(r.Tolerance)))
	for _, g := range r.Gaps {
		p.f("<p class=\"error\">Recording gap from %s to %s (%s): not judged.</p>\n",
			g.From.UTC().Format(time.RFC3339Nano), g.until(), esc(g.Why))
	}
}

// origin is where a run's times count from, as its evidence counts them.
func origin(run Run) time.Time {
	if run.Start.IsZero() {
		return timeline.Epoch
	}
	return run.Start
}

// drawing reads a run's timeline into lanes; the evidence of its failed
// and warned cases becomes markers linked to it.
func (p *page) drawing(i int, fsys fs.FS) (*drawing, error) {
	run := p.r.Runs[i]
	from := origin(run)
	span := max(run.Virtual, run.Reached)
	cited := map[string]bool{}
	for _, c := range run.Cases {
		for _, e := range c.Evidence {
			if c.Status == Fail || c.Status == Warn {
				key, _ := groupKey(e.Object)
				cited[key] = true
			}
			span = max(span, e.Time.Sub(from))
		}
	}
	var err error
	d := newDrawing(from, span)
	if run.Timeline != "" {
		err = d.read(fsys, filepath.ToSlash(run.Timeline), cited)
	}
	d.finish()
	for j, c := range run.Cases {
		if c.Status != Fail && c.Status != Warn {
			continue
		}
		for _, e := range c.Evidence {
			d.cite(e, p.anchors[[2]int{i, j}])
		}
	}
	return d, err
}

// read streams a timeline file into d. The span was fixed from the report,
// so a run's events past its end (a recording's last writes) are drawn at
// its end.
func (d *drawing) read(fsys fs.FS, name string, cited map[string]bool) error {
	f, err := fsys.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	dec := timeline.NewDecoder(f)
	for {
		e, err := dec.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		d.add(e, cited)
	}
}

// caseSection is a case's evidence: what it says, its measures drawn, and
// its evidence one event a line, each with its whole diff one click away.
func (p *page) caseSection(id string, c Case, from time.Time) {
	p.f("<div class=\"case %s\" id=\"%s\">\n<h3><span class=\"v %s\">%s</span> %s: %s</h3>\n",
		c.Status, id, c.Status, strings.ToUpper(string(c.Status)), esc(c.Rule), esc(c.Statement))
	p.f("<p class=\"meta\">Section %s, role %s.</p>\n", esc(c.Section), esc(c.Role))
	if c.Message != "" {
		p.f("<p class=\"msg\">%s</p>\n", esc(c.Message))
	}
	if len(c.Measures) > 0 {
		measureChart(&p.b, c.Measures)
	}
	if len(c.Evidence) > 0 {
		p.f("<ol class=\"evidence\">\n")
		for _, e := range c.Evidence {
			line := BriefEventFrom(e, from)
			if diff := diffText(e); diff != "" {
				p.f("<li><details><summary><code>%s</code></summary><pre>%s</pre></details></li>\n", esc(line), esc(strings.TrimSpace(diff)))
			} else {
				p.f("<li><code>%s</code></li>\n", esc(line))
			}
		}
		p.f("</ol>\n")
	}
	p.f("</div>\n")
}

// diffText is an event's whole change, each side of each condition and
// field on a line of its own, for a marker's title and an evidence line's
// details: the brief line cuts messages, this does not.
func diffText(e timeline.Event) string {
	var b strings.Builder
	side := func(c *timeline.Condition) string {
		if c == nil {
			return "absent"
		}
		s := c.Status
		if c.Reason != "" {
			s += " (" + c.Reason + ")"
		}
		return s + " " + fmt.Sprintf("%q", c.Message)
	}
	for _, c := range e.Conditions {
		if e.Verb == timeline.VerbExpect { // it read the condition, changed nothing
			fmt.Fprintf(&b, "\n%s observed: %s", c.Type, side(c.After))
			continue
		}
		fmt.Fprintf(&b, "\n%s before: %s\n%s after:  %s", c.Type, side(c.Before), c.Type, side(c.After))
	}
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "\n%s before: %s\n%s after:  %s", f.Path, fieldSideFull(f.Before), f.Path, fieldSideFull(f.After))
	}
	if e.Detail != "" && len([]rune(e.Detail)) > briefText {
		fmt.Fprintf(&b, "\ndetail: %s", e.Detail)
	}
	return b.String()
}

func fieldSideFull(v []byte) string {
	if v == nil {
		return "absent"
	}
	return string(v)
}
