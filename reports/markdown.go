package reports

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/visible"
)

// WriteMarkdown writes r for people: a heading with the overall verdict, the
// environment, a summary table of runs, and per run a table of its rules.
// Failing and warned cases then get a section with their message, measures
// and evidence; passing cases with measures get one too, because a latency
// that passes its budget by a hair matters as much as one that misses it.
// Warnings are counted in a column of their own and fail nothing.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s report: %s\n\n", r.Tool, r.Verdict())
	if r.StartedAt.IsZero() {
		b.WriteString("Wall-clock fields left out (reproducible report: the same input gives the same files).\n\n")
	} else {
		fmt.Fprintf(&b, "Started %s, took %s.\n\n", r.StartedAt.Format(time.RFC3339), fmtDur(r.Wall))
	}

	env := r.Environment
	b.WriteString("## Environment\n\n")
	if env.Cluster != "" {
		fmt.Fprintf(&b, "- Cluster: %s\n- Kubernetes: %s\n- Reached in: %s\n", mdInline(env.Cluster), mdInline(env.KubeVersion), fmtDur(env.Startup))
	} else {
		fmt.Fprintf(&b, "- Kubernetes: %s\n- etcd: %s\n- API server start-up: %s\n", mdInline(env.KubeVersion), mdInline(env.EtcdVersion), fmtDur(env.Startup))
	}
	if env.Assets != "" {
		fmt.Fprintf(&b, "- Assets: %s\n", mdCode(env.Assets))
	}

	b.WriteString("\n## Summary\n\n")
	row(&b, "Scenario", "Subjects", "Virtual", "Wall", "Speed-up", "API calls", "Verdict", "Rules judged", "Pass", "Warn", "Fail", "Skip")
	align(&b, "---", "---", "---:", "---:", "---:", "---:", "---", "---:", "---:", "---:", "---:", "---:")
	for _, run := range r.Runs {
		pass, warn, fail, skip := run.counts()
		judged, rules := run.judged()
		row(&b, run.Scenario, run.subjects(), fmtDur(run.Virtual), fmtDur(run.Wall.Round(time.Millisecond)),
			run.speedup(), fmt.Sprint(run.APICalls), run.verdict(), fmt.Sprintf("%d of %d", judged, rules),
			fmt.Sprint(pass), fmt.Sprint(warn), fmt.Sprint(fail), fmt.Sprint(skip))
	}
	if len(r.Skipped) > 0 {
		b.WriteString("\n## Not played\n\nThese scenarios were left out before anything started; they passed nothing.\n\n")
		row(&b, "Scenario", "Mechanism", "Why")
		align(&b, "---", "---", "---")
		for _, s := range r.Skipped {
			row(&b, s.Scenario, s.Mechanism, s.Why)
		}
	}
	if len(r.Missing) > 0 {
		fmt.Fprintf(&b, "\n## Missing shards\n\nThis report was merged without shards %s: none of their runs is here, so it is %s, never a pass.\n", strings.Join(r.Missing, ", "), Incomplete)
	}
	for _, run := range r.Runs {
		writeRun(&b, run)
	}
	_, err := b.WriteTo(w)
	return err
}

func writeRun(b *bytes.Buffer, run Run) {
	fmt.Fprintf(b, "\n## %s\n\n", mdInline(run.name()))
	if run.Description != "" {
		fmt.Fprintf(b, "%s\n\n", mdText(run.Description))
	}
	if run.Redacted > 0 {
		fmt.Fprintf(b, "Subjects and commands are shown with %s (the subjects ran with them).\n\n", redact.Note(run.Redacted))
	}
	if run.Error != "" {
		fmt.Fprintf(b, "**The run could not complete** (%s): %s\n\n", run.reached(), mdInline(run.Error))
	}
	if run.verdict() == NotJudged {
		b.WriteString("**Not judged**: the run failed nothing, but proved nothing of its subjects either:\n\n")
		for _, why := range run.NotJudged {
			fmt.Fprintf(b, "- %s\n", mdInline(why))
		}
		b.WriteString("\n")
	}
	if run.Timeline != "" {
		fmt.Fprintf(b, "Timeline: %s\n\n", mdLink(run.Timeline))
	}
	if run.Recording != nil {
		writeRecording(b, run.Recording)
	}
	if run.TimeScale != 0 && run.TimeScale != 1 {
		fmt.Fprintf(b, "In real time, scenario times and thresholds scaled by %g (budgets that judge a subject are not).\n\n", run.TimeScale)
	}
	if run.Reaction > 0 {
		fmt.Fprintf(b, "Reaction bound: %s (how long a subject may take to act on a change it can see; --reaction-bound).\n\n", run.Reaction)
	}
	if len(run.Processes) > 0 {
		row(b, "Process", "Role", "Command", "Ended", "Output")
		align(b, "---", "---", "---", "---", "---")
		for _, p := range run.Processes {
			output := "-" // a Deployment's pods log on the cluster
			if p.Log != "" {
				output = mdLink(p.Log)
			}
			align(b, mdInline(p.Name), mdInline(p.Role), mdCode(p.Command), mdInline(strings.Join(p.Endings, "; ")), output)
		}
		b.WriteString("\n")
	}
	row(b, "Rule", "Section", "Statement", "Verdict")
	align(b, "---", "---", "---", "---")
	for _, c := range run.Cases {
		row(b, c.Rule, c.Section, c.Statement, strings.ToUpper(string(c.Status)))
	}
	for _, c := range run.Cases {
		if c.Status == Fail || c.Status == Warn || len(c.Measures) > 0 {
			writeCase(b, c, run.Start)
		}
	}
}

func writeCase(b *bytes.Buffer, c Case, origin time.Time) {
	fmt.Fprintf(b, "\n### %s %s: %s\n", mdInline(c.Rule), strings.ToUpper(string(c.Status)), mdInline(c.Statement))
	fmt.Fprintf(b, "\nSection %s, role %s.\n", mdInline(c.Section), mdInline(c.Role))
	if c.Message != "" {
		fmt.Fprintf(b, "\n%s\n", mdText(c.Message))
	}
	if len(c.Measures) > 0 {
		b.WriteString("\n")
		row(b, "Measure", "Count", "p50", "p99", "Max", "Budget")
		align(b, "---", "---:", "---:", "---:", "---:", "---:")
		for _, m := range c.Measures {
			row(b, m.Name, fmt.Sprint(m.Count), fmtDur(m.P50), fmtDur(m.P99), fmtDur(m.Max), budget(m))
		}
	}
	if len(c.Evidence) > 0 {
		lines := make([]string, len(c.Evidence))
		for i, e := range c.Evidence {
			lines[i] = BriefEventFrom(e, origin)
		}
		text := visible.Text(strings.Join(lines, "\n"))
		f := fence(text)
		fmt.Fprintf(b, "\nEvidence:\n\n%s\n%s\n%s\n", f, text, f)
	}
}

// row writes one Markdown table row of text: each cell flattened to one
// line and escaped (mdInline), pipes included, since operator messages
// can hold anything.
func row(b *bytes.Buffer, cells ...string) {
	for i, c := range cells {
		cells[i] = mdInline(c)
	}
	align(b, cells...)
}

// align writes one Markdown table row of cells written for Markdown
// already: the alignment row, links, code.
func align(b *bytes.Buffer, cells ...string) {
	fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// fence returns a code fence longer than any run of backticks in text, so
// evidence quoting an operator's message cannot close the block early.
func fence(text string) string {
	return strings.Repeat("`", max(3, longestRun(text, '`')+1))
}
