package reports

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/visible"
)

// The page's style and script, inlined: the page is one file that opens
// offline, from a CI artifact, with no network.
var (
	//go:embed html/page.css
	pageCSS string
	//go:embed html/page.js
	pageJS string
)

// HTMLFile is the name of the page WriteHTMLFile writes.
const HTMLFile = "report.html"

// WriteHTMLFile writes report.html into dir, beside the reports WriteAll
// writes there, drawing each run's timeline from its file under dir (run
// times, faults and the writes rules cite). Like WriteAll it writes a
// temporary file and renames it, so a failure leaves no half page.
func WriteHTMLFile(dir string, r *Report) (err error) {
	tmp, err := os.CreateTemp(dir, "."+HTMLFile+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	err = WriteHTML(tmp, r, os.DirFS(dir))
	if err = errors.Join(err, tmp.Chmod(0o644), tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, HTMLFile))
}

// WriteHTML writes r as one self-contained page for people: a summary that
// leads to the first failure in one click, a rule table filterable by
// verdict and mechanism whose failures link to their evidence, and per run
// a timeline (one lane per object and condition, node file, probe and
// process, markers on faults and on the writes rules cite) with charts of
// the measures. Timelines are read from fsys at each run's Timeline path;
// a missing or unreadable one is said on the page, not an error. The same
// report and timelines give the same bytes.
func WriteHTML(w io.Writer, r *Report, fsys fs.FS) error {
	p := newPage(r)
	p.head()
	p.summary()
	p.runsTable()
	p.rules()
	for i := range r.Runs {
		p.run(i, fsys)
	}
	p.foot()
	_, err := p.b.WriteTo(w)
	return err
}

// page builds the HTML. Every text from a report goes through esc.
type page struct {
	b       bytes.Buffer
	r       *Report
	anchors map[[2]int]string // (run, case) -> id of its evidence
	first   string            // the first failure's id
	fails   []failure
}

// failure is one failed (or warned) case, as the summary lists it.
type failure struct {
	id, rule, run string
	status        Status
}

func newPage(r *Report) *page {
	p := &page{r: r, anchors: map[[2]int]string{}}
	for i, run := range r.Runs {
		for j, c := range run.Cases {
			if c.Status != Fail && c.Status != Warn && len(c.Measures) == 0 {
				continue
			}
			id := fmt.Sprintf("ev-%d-%d", i+1, j+1)
			p.anchors[[2]int{i, j}] = id
			if c.Status == Fail || c.Status == Warn {
				p.fails = append(p.fails, failure{id: id, rule: c.Rule, run: run.name(), status: c.Status})
			}
			if c.Status == Fail && p.first == "" {
				p.first = id
			}
		}
	}
	return p
}

// esc escapes text for HTML, hidden characters made visible.
func esc(s string) string { return html.EscapeString(visible.Text(s)) }

func (p *page) f(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }

func (p *page) head() {
	verdict := p.verdict()
	p.f("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.f("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.f("<title>%s report: %s</title>\n<style>\n%s</style>\n</head>\n<body>\n", esc(p.r.Tool), verdict, pageCSS)
	p.f("<header><h1>%s report <span class=\"badge %s\">%s</span></h1>\n", esc(p.r.Tool), badge(verdict), verdict)
	p.f("<nav><a href=\"#summary\">Summary</a> <a href=\"#runs\">Runs</a> <a href=\"#rules\">Rules</a></nav></header>\n<main>\n")
}

func (p *page) verdict() string { return p.r.Verdict() }

// badge is the CSS class of a verdict's badge: "not-judged" for NOT JUDGED.
func badge(verdict string) string { return strings.ReplaceAll(strings.ToLower(verdict), " ", "-") }

func (p *page) foot() {
	p.f("</main>\n<div id=\"tip\" role=\"tooltip\" hidden></div>\n<script>\n%s</script>\n</body>\n</html>\n", pageJS)
}

// summary is what a reader needs first: what ran, where, and how it went,
// with the failures one click away.
func (p *page) summary() {
	r := p.r
	var pass, warn, fail, skip, errs int
	var subjects, modes, scales, reactions, seeds []string
	for _, run := range r.Runs {
		p2, w2, f2, s2 := run.counts()
		pass, warn, fail, skip = pass+p2, warn+w2, fail+f2, skip+s2
		if v := run.verdict(); v == "ERROR" || v == "INTERRUPTED" || run.Error != "" {
			errs++
		}
		subjects = appendNew(subjects, run.subjects())
		modes = appendNew(modes, run.mode(r.Environment))
		scales = appendNew(scales, scaleText(run.TimeScale))
		if run.Reaction > 0 {
			reactions = appendNew(reactions, run.Mechanism+" "+run.Reaction.String())
		}
		for _, c := range run.Cases {
			if seed, _, ok := strings.Cut(c.Section, " §"); ok && seed != "" && strings.Trim(seed, "0123456789") == "" {
				seeds = appendNew(seeds, seed)
			}
		}
	}
	slices.Sort(seeds)
	p.f("<section id=\"summary\"><h2>Summary</h2>\n<dl class=\"facts\">\n")
	p.fact("Cases", p.counts(pass, fail, warn, skip, errs))
	p.fact("Runs", fmt.Sprintf("<a href=\"#runs\">%d</a>", len(r.Runs)))
	if len(r.Skipped) > 0 { // left out before anything started: they passed nothing
		var lines []string
		for _, l := range SkippedLines(r.Skipped) {
			lines = append(lines, esc(l))
		}
		p.fact("Not played", strings.Join(lines, "<br>\n"))
	}
	if len(r.Missing) > 0 {
		p.fact("Missing shards", esc(strings.Join(r.Missing, ", ")+": none of their runs is here; "+Incomplete))
	}
	p.fact("Seeds covered", esc(orDash(strings.Join(seeds, ", "))))
	p.fact("Subjects", esc(orDash(strings.Join(subjects, "; "))))
	p.fact("Mode", esc(strings.Join(modes, ", ")))
	p.fact("Time scale", esc(strings.Join(scales, ", ")))
	if len(reactions) > 0 {
		p.fact("Reaction bound", esc(strings.Join(reactions, ", ")))
	}
	p.fact("opcert", esc(opcertVersion()))
	env := r.Environment
	if env.Cluster != "" {
		p.fact("Cluster", esc(env.Cluster))
		p.fact("API server", esc(env.KubeVersion))
	} else {
		p.fact("API server", esc(strings.TrimSpace(env.KubeVersion+", "+env.EtcdVersion)))
	}
	if r.StartedAt.IsZero() {
		p.fact("Wall clock", "left out (a reproducible report: the same input gives the same files)")
	} else {
		p.fact("Started", esc(r.StartedAt.UTC().Format(time.RFC3339))+", took "+esc(fmtDur(r.Wall.Round(time.Millisecond))))
	}
	p.f("</dl>\n")
	if len(p.fails) > 0 {
		p.f("<h3>Failures and warnings</h3>\n<ul class=\"fails\">\n")
		for _, f := range p.fails {
			p.f("<li><a class=\"v %s\" href=\"#%s\">%s</a> in %s</li>\n", f.status, f.id, esc(f.rule), esc(f.run))
		}
		p.f("</ul>\n")
	}
	p.f("</section>\n")
}

// counts are the verdicts' totals; the failures' count leads to the first
// failure's evidence.
func (p *page) counts(pass, fail, warn, skip, errs int) string {
	failed := fmt.Sprintf("<span class=\"n fail\">%d failed</span>", fail)
	if p.first != "" {
		failed = fmt.Sprintf("<a id=\"fail-count\" class=\"n fail\" href=\"#%s\">%d failed</a>", p.first, fail)
	}
	return fmt.Sprintf("%s · <span class=\"n pass\">%d passed</span> · <span class=\"n warn\">%d warned</span> · "+
		"<span class=\"n skip\">%d not judged</span> · <span class=\"n broken\">%d runs in error</span>", failed, pass, warn, skip, errs)
}

func (p *page) fact(name, value string) { p.f("<dt>%s</dt><dd>%s</dd>\n", name, value) }

func (p *page) runsTable() {
	p.f("<section id=\"runs\"><h2>Runs</h2>\n<table class=\"runs\"><thead><tr><th>#</th><th>Scenario</th><th>Mechanism</th>" +
		"<th>Subjects</th><th>Mode</th><th>Virtual</th><th>Wall</th><th>API calls</th><th>Verdict</th>" +
		"<th>Pass</th><th>Warn</th><th>Fail</th><th>Not judged</th></tr></thead>\n<tbody>\n")
	for i, run := range p.r.Runs {
		pass, warn, fail, skip := run.counts()
		v := run.verdict()
		p.f("<tr><td>%d</td><td><a href=\"#run-%d\">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td class=\"num\">%s</td>"+
			"<td class=\"num\">%s</td><td class=\"num\">%d</td><td><span class=\"badge %s\">%s</span></td>"+
			"<td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%s</td><td class=\"num\">%d</td></tr>\n",
			i+1, i+1, esc(run.Scenario), esc(orDash(run.Mechanism)), esc(run.subjects()), run.mode(p.r.Environment),
			esc(fmtDur(run.Virtual)), esc(wallText(run.Wall)), run.APICalls, badge(v), v,
			pass, warn, p.failCell(i, fail), skip)
	}
	p.f("</tbody></table></section>\n")
}

// failCell is a run's failure count, linked to its first failure.
func (p *page) failCell(i, fail int) string {
	for j, c := range p.r.Runs[i].Cases {
		if c.Status == Fail {
			return fmt.Sprintf("<a href=\"#%s\">%d</a>", p.anchors[[2]int{i, j}], fail)
		}
	}
	return fmt.Sprint(fail)
}

// ruleRow is one rule as the rule table shows it: its verdict in each run
// that judged it.
type ruleRow struct {
	mechanism, rule, section, statement string
	cells                               []string
	verdicts                            []string
}

// rules is the rule table: one row per rule, a chip per run that judged
// it; a failed or warned chip names its run and links to the evidence,
// the others link to the run.
func (p *page) rules() {
	var rows []*ruleRow
	byKey := map[string]*ruleRow{}
	var mechanisms []string
	for i, run := range p.r.Runs {
		mechanisms = appendNew(mechanisms, orDash(run.Mechanism))
		for j, c := range run.Cases {
			key := strings.Join([]string{run.Mechanism, c.Rule, c.Section, c.Statement}, "\x00")
			row := byKey[key]
			if row == nil {
				row = &ruleRow{mechanism: orDash(run.Mechanism), rule: c.Rule, section: c.Section, statement: c.Statement}
				byKey[key] = row
				rows = append(rows, row)
			}
			row.verdicts = appendNew(row.verdicts, string(c.Status))
			var cell string
			switch c.Status {
			case Fail, Warn:
				cell = fmt.Sprintf("<a class=\"v %s\" href=\"#%s\">%s</a>", c.Status, p.anchors[[2]int{i, j}], esc(run.name()))
			default:
				cell = fmt.Sprintf("<a class=\"v %s\" href=\"#run-%d\" title=\"%s: %s\">%s</a>", c.Status, i+1,
					esc(run.name()), verdictWord(c.Status), verdictMark(c.Status))
			}
			row.cells = append(row.cells, cell)
		}
	}
	slices.Sort(mechanisms)
	p.f("<section id=\"rules\"><h2>Rules</h2>\n<form class=\"filter\" id=\"rule-filter\">")
	p.f("<label>Verdict <select name=\"verdict\"><option value=\"\">any</option>")
	for _, v := range []Status{Fail, Warn, Skip, Pass} {
		p.f("<option value=\"%s\">%s</option>", v, verdictWord(v))
	}
	p.f("</select></label> <label>Mechanism <select name=\"mechanism\"><option value=\"\">any</option>")
	for _, m := range mechanisms {
		p.f("<option>%s</option>", esc(m))
	}
	p.f("</select></label> <output name=\"shown\"></output></form>\n")
	p.f("<table class=\"rules\" id=\"rule-table\"><thead><tr><th>ID</th><th>Section</th><th>Statement</th><th>Mechanism</th>" +
		"<th>Verdict per scenario</th></tr></thead>\n<tbody>\n")
	for _, row := range rows {
		p.f("<tr data-mechanism=\"%s\" data-verdicts=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"chips\">%s</td></tr>\n",
			esc(row.mechanism), strings.Join(row.verdicts, " "), esc(row.rule), esc(row.section), esc(row.statement),
			esc(row.mechanism), strings.Join(row.cells, " "))
	}
	p.f("</tbody></table></section>\n")
}

func verdictWord(s Status) string {
	switch s {
	case Pass:
		return "passed"
	case Fail:
		return "failed"
	case Warn:
		return "warned"
	case Skip:
		return "not judged"
	}
	return string(s)
}

func verdictMark(s Status) string {
	switch s {
	case Pass:
		return "✓"
	case Skip:
		return "–"
	}
	return "✗"
}

// mode is how a run was played: in virtual time, with executables in real
// time (process), on a cluster, or judged from a recording.
func (run Run) mode(env Environment) string {
	switch {
	case run.Recording != nil:
		return "recorded"
	case env.Cluster != "":
		return "cluster"
	case len(run.Processes) > 0 || run.TimeScale != 0 && run.TimeScale != 1:
		return "process"
	}
	return "virtual"
}

func scaleText(s float64) string {
	if s == 0 || s == 1 {
		return "1 (scenario times as written)"
	}
	return fmt.Sprintf("%g (scenario times and thresholds multiplied by it)", s)
}

func wallText(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmtDur(d.Round(time.Millisecond))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// opcertVersion is the version of the opcert module this binary holds:
// the main module's for opcert itself, the dependency's for a team's tests
// that certify with it (package certify), with the commit when the build
// recorded one.
func opcertVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	const module = "github.com/opcert/opcert"
	version := ""
	if bi.Main.Path == module {
		version = bi.Main.Version
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				version += " " + s.Value[:min(12, len(s.Value))]
			case s.Key == "vcs.modified" && s.Value == "true":
				version += " (modified)"
			}
		}
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			version = d.Version
		}
	}
	if version == "" || strings.HasPrefix(version, "(devel)") {
		version = "devel" + strings.TrimPrefix(version, "(devel)")
	}
	return version
}
