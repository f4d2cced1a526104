package reports

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// The timeline is HTML rows, each an inline SVG of the same viewBox: rows
// collapse as <details> (no script needed, and printable), and zooming
// (page.js) narrows every row's viewBox at once. Bars are one path per
// status class and ticks one path per row, so a row costs a few hundred
// bytes whatever the run's length.

// timeline writes run i's timeline: zoom controls, the axis, then a
// collapsible block per kind, a row per object and a row per condition.
func (p *page) timeline(i int, d *drawing, err error) {
	run := p.r.Runs[i]
	windows := p.windows(i, d)
	view := ""
	if run.verdict() == "FAIL" && len(windows) > 0 && windows[0].to-windows[0].from < laneWidth/4 {
		view = fmt.Sprintf(" data-view=\"%s %s\"", num(windows[0].from), num(windows[0].to))
	}
	scale := run.TimeScale
	if scale == 0 {
		scale = 1
	}
	p.f("<div class=\"tl\" id=\"tl-%d\" data-span=\"%s\" data-scale=\"%s\"%s>\n", i+1,
		strconv.FormatFloat(d.span.Seconds(), 'g', -1, 64), strconv.FormatFloat(scale, 'g', -1, 64), view)
	p.f("<div class=\"zoom\"><button type=\"button\" data-a=\"0\" data-b=\"%s\">whole run</button>", num(laneWidth))
	for n, w := range windows {
		p.f("<button type=\"button\" data-a=\"%s\" data-b=\"%s\">%s</button>", num(w.from), num(w.to), esc(w.label))
		if n == 7 {
			break
		}
	}
	p.f("<button type=\"button\" data-zoom=\"0.5\" aria-label=\"zoom in\">+</button><button type=\"button\" data-zoom=\"2\" aria-label=\"zoom out\">−</button>")
	p.f("<button type=\"button\" data-pan=\"-0.5\" aria-label=\"earlier\">←</button><button type=\"button\" data-pan=\"0.5\" aria-label=\"later\">→</button>")
	p.f(" <span class=\"legend\"><i class=\"b-True\"></i>True <i class=\"b-False\"></i>False <i class=\"b-Unknown\"></i>Unknown " +
		"<i class=\"b-exists\"></i>exists/runs <i class=\"b-down\"></i>not running <i class=\"b-hung\"></i>hung <i class=\"b-failed\"></i>probe failed " +
		"<i class=\"b-mixed\"></i>too fast to draw <i class=\"m-fault\"></i>death, hang, failed expectation <i class=\"m-step\"></i>scenario step <i class=\"m-perturb\"></i>perturbation " +
		"<i class=\"m-cite\"></i>cited by a failure</span></div>\n")
	p.axis(d.span, scale)
	if err != nil {
		p.f("<p class=\"error\">The timeline could not be read (%s): only the evidence is drawn.</p>\n", esc(err.Error()))
	}
	p.runRow(run, d)
	for _, k := range d.kinds {
		p.kind(k)
	}
	p.f("<p class=\"meta\">%d events", d.events)
	if d.skipped > 0 {
		p.f("; %d fault and step markers beyond the first %d left out (the timeline file has them all)", d.skipped, maxMarkers)
	}
	p.f(".</p>\n")
	p.ladders(d)
	p.f("</div>\n")
}

// runRow is the run itself, on every timeline: the time it covered, and
// for a run that stopped early, the rest of its scenario as not played.
func (p *page) runRow(run Run, d *drawing) {
	var t track
	t.set(0, barRecord)
	if run.Stopped != "" {
		t.set(d.x(d.origin.Add(run.Reached)), barGap)
	}
	t.end(laneWidth)
	p.f("<div class=\"row run-row\">")
	p.label("run", timesText(run))
	p.svg(&t, nil, nil)
	p.f("</div>\n")
}

// window is a stretch of a run worth looking at closely: around the
// evidence of a failed or warned case.
type window struct {
	from, to float64
	label    string
}

// windows are the stretches around each failed or warned case's evidence,
// padded, and merged where they overlap.
func (p *page) windows(i int, d *drawing) []window {
	var ws []window
	for _, c := range p.r.Runs[i].Cases {
		if (c.Status != Fail && c.Status != Warn) || len(c.Evidence) == 0 {
			continue
		}
		a, b := laneWidth, 0.0
		for _, e := range c.Evidence {
			x := d.x(e.Time)
			a, b = min(a, x), max(b, x)
		}
		pad := max((b-a)*0.2, laneWidth/50)
		ws = append(ws, window{max(0, a-pad), min(laneWidth, b+pad), c.Rule})
	}
	slices.SortStableFunc(ws, func(x, y window) int { return cmp.Compare(x.from, y.from) })
	var merged []window
	for _, w := range ws {
		if n := len(merged); n > 0 && w.from <= merged[n-1].to {
			last := &merged[n-1]
			last.to = max(last.to, w.to)
			if !slices.Contains(strings.Split(last.label, ", "), w.label) {
				last.label += ", " + w.label
			}
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

// axis writes the time axis for the whole run (page.js redraws it when
// zooming): offsets from the run's start, and where the run's times were
// scaled, the scenario's times beneath.
func (p *page) axis(span time.Duration, scale float64) {
	p.f("<div class=\"axis\">")
	for _, t := range axisTicks(span.Seconds(), 0, laneWidth) {
		p.f("<span style=\"left:%s%%\">%s</span>", num(t.x/laneWidth*100), fmtOffset(t.sec))
	}
	p.f("</div>\n")
	if scale != 1 {
		p.f("<div class=\"axis scaled\" title=\"scenario time: wall time divided by the time scale\">")
		for _, t := range axisTicks(span.Seconds(), 0, laneWidth) {
			p.f("<span style=\"left:%s%%\">%s</span>", num(t.x/laneWidth*100), fmtOffset(t.sec/scale))
		}
		p.f("</div>\n")
	}
}

type axisTick struct{ x, sec float64 }

// axisSteps are the steps an axis may count in, in seconds.
var axisSteps = []float64{0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// axisTicks are the ticks between units a and b of a run of spanSec
// seconds: the smallest step that gives at most 8; past 8 days, a whole
// number of days, 1, 2 or 5 times a power of ten, so that a span of
// centuries (a capture dated year 1) still has 8 ticks, not one a day.
// page.js computes the same.
func axisTicks(spanSec, a, b float64) []axisTick {
	from, to := a/laneWidth*spanSec, b/laneWidth*spanSec
	step := 0.0
	for _, s := range axisSteps {
		if (to-from)/s <= 8 {
			step = s
			break
		}
	}
	if step == 0 {
		const day = 86400
		step = day * niceCeil((to-from)/8/day)
	}
	var ticks []axisTick
	for t := math.Ceil(from/step) * step; t <= to+1e-9; t += step {
		ticks = append(ticks, axisTick{x: t / spanSec * laneWidth, sec: t})
	}
	return ticks
}

// niceCeil is the least of 1, 2 and 5 times a power of ten that is at
// least x (x >= 1).
func niceCeil(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// fmtOffset is an axis label: "+1h30m", "+45s", "+0.5s", to the
// millisecond (page.js: the same).
func fmtOffset(sec float64) string {
	ms := int64(math.Round(sec * 1000))
	if ms == 0 {
		return "0"
	}
	out := "+"
	if h := ms / 3600000; h > 0 {
		out += strconv.FormatInt(h, 10) + "h"
	}
	if m := ms % 3600000 / 60000; m > 0 {
		out += strconv.FormatInt(m, 10) + "m"
	}
	if s := ms % 60000; s > 0 {
		out += strconv.FormatFloat(float64(s)/1000, 'f', -1, 64) + "s"
	}
	return out
}

// kind writes the block of one kind: open when it holds an object worth
// looking at (cited by a failure, or with a fault), or objects with
// conditions and not too many of them; the rest (namespaces, node files,
// hundreds of CRs) collapsed.
func (p *page) kind(k *kindLanes) {
	open := false
	for _, g := range k.groups {
		open = open || g.cited || g.faulted || len(g.lanes) > 0 && g.kind != timeline.KindFile && len(k.groups) <= 12
	}
	p.f("<details class=\"kind\"%s><summary>%s <small>(%s)</small></summary>\n", attrIf(open, " open"), esc(k.kind), countText(k))
	for _, g := range k.groups {
		label := g.label
		if g.shared {
			label = fmt.Sprintf("%d other %s", k.others, k.kind)
		}
		title := fmt.Sprintf("%s: %d events", label, g.events)
		if len(g.lanes) == 0 {
			p.f("<div class=\"row\">")
			p.label(label, title+spentText(g.head.spent))
			p.svg(&g.head, &g.ticks, g.markers)
			p.f("</div>\n")
			continue
		}
		p.f("<details class=\"obj\"%s><summary class=\"row\">", attrIf(g.cited || g.faulted || len(k.groups) <= 3, " open"))
		p.label(label, title+spentText(g.head.spent))
		p.svg(&g.head, &g.ticks, g.markers)
		p.f("</summary>\n")
		for _, l := range g.lanes {
			p.f("<div class=\"row lane\">")
			p.label(l.name, l.name+spentText(l.spent))
			p.svg(&l.track, nil, nil)
			p.f("</div>\n")
		}
		if g.dropped > 0 {
			p.f("<p class=\"meta\">%d more lanes left out.</p>\n", g.dropped)
		}
		p.f("</details>\n")
	}
	p.f("</details>\n")
}

func countText(k *kindLanes) string {
	n := len(k.groups)
	if k.others > 0 {
		n += k.others - 1
	}
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}

func attrIf(ok bool, attr string) string {
	if ok {
		return attr
	}
	return ""
}

// spentText is how a lane's time divides between its states: for a gate
// (a condition that blocks an upgrade) its open and closed shares.
func spentText(spent map[string]float64) string {
	if len(spent) == 0 {
		return ""
	}
	classes := make([]string, 0, len(spent))
	for c := range spent {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%s %.1f%%", c, spent[c]/laneWidth*100)
	}
	return " · " + strings.Join(parts, ", ")
}

func (p *page) label(text, title string) {
	p.f("<span class=\"lbl\" title=\"%s\">%s</span>", esc(title), esc(elide(text, 48)))
}

// svg writes one row: bars by class, a tick per bucket with events, and
// markers (a cited write links to its evidence; each says what it is on
// hover and on focus).
func (p *page) svg(t *track, ticks *[tickBuckets]int32, markers []marker) {
	p.f("<svg viewBox=\"0 0 %s %s\" preserveAspectRatio=\"none\" role=\"img\">", num(laneWidth), num(laneHeight))
	byClass := map[string]*bytes.Buffer{}
	var classes []string
	for _, b := range t.bars {
		buf := byClass[b.class]
		if buf == nil {
			buf = &bytes.Buffer{}
			byClass[b.class] = buf
			classes = append(classes, b.class)
		}
		fmt.Fprintf(buf, "M%s 1h%sv8h-%sz", num(b.from), num(b.to-b.from), num(b.to-b.from))
	}
	slices.Sort(classes)
	for _, c := range classes {
		p.f("<path class=\"b-%s\" d=\"%s\"/>", c, byClass[c].String())
	}
	if ticks != nil {
		var d strings.Builder
		for i, n := range ticks {
			if n > 0 {
				fmt.Fprintf(&d, "M%s 6v4", num((float64(i)+0.5)*laneWidth/tickBuckets))
			}
		}
		if d.Len() > 0 {
			p.f("<path class=\"tk\" d=\"%s\"/>", d.String())
		}
	}
	for _, m := range markers {
		line := fmt.Sprintf("<line x1=\"%s\" x2=\"%s\" y1=\"0\" y2=\"10\"/>", num(m.x), num(m.x))
		if m.href != "" {
			p.f("<a class=\"mk m-%s\" href=\"#%s\"><title>%s</title>%s</a>", m.class, m.href, esc(m.title), line)
		} else {
			p.f("<g class=\"mk m-%s\" tabindex=\"0\"><title>%s</title>%s</g>", m.class, esc(m.title), line)
		}
	}
	p.f("</svg>")
}

// num prints a coordinate to a tenth of a unit, without trailing zeros.
func num(x float64) string {
	return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64)
}

// maxLadders is how many ladders a run charts: those of the objects
// restarted most.
const maxLadders = 4

// ladders charts the time between the (re)starts of the objects restarted
// most: a back-off shows as rising bars.
func (p *page) ladders(d *drawing) {
	var gs []*group
	for _, k := range d.kinds {
		for _, g := range k.groups {
			if len(g.ladder()) > 0 {
				gs = append(gs, g)
			}
		}
	}
	slices.SortStableFunc(gs, func(a, b *group) int { return cmp.Compare(len(b.starts), len(a.starts)) })
	for _, g := range gs[:min(len(gs), maxLadders)] {
		ladderChart(&p.b, g.kind+" "+g.label, g.ladder())
	}
}

// ladderChart draws the gaps between successive restarts as bars.
func ladderChart(b *bytes.Buffer, name string, gaps []time.Duration) {
	const w, h, maxBars = 600.0, 90.0, 60
	shown := gaps[:min(len(gaps), maxBars)]
	top := slices.Max(shown)
	if top <= 0 {
		top = 1
	}
	fmt.Fprintf(b, "<figure class=\"chart\"><figcaption>%s: time between (re)starts, %d restarts (longest %s)</figcaption>",
		esc(name), len(gaps), esc(fmtDur(top)))
	fmt.Fprintf(b, "<svg viewBox=\"0 0 %s %s\" role=\"img\">", num(w), num(h+14))
	bw := w / float64(len(shown))
	for i, g := range shown {
		bh := float64(g) / float64(top) * h
		fmt.Fprintf(b, "<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\"><title>restart %d after %s</title></rect>",
			num(float64(i)*bw+1), num(h-bh), num(max(bw-2, 0.5)), num(bh), i+1, esc(fmtDur(g)))
	}
	fmt.Fprintf(b, "<text x=\"0\" y=\"%s\">1st</text><text x=\"%s\" y=\"%s\" text-anchor=\"end\">%s</text></svg>", num(h+12), num(w), num(h+12), ordinal(len(shown)))
	if len(gaps) > maxBars {
		fmt.Fprintf(b, "<p class=\"meta\">The first %d of %d shown.</p>", maxBars, len(gaps))
	}
	b.WriteString("</figure>\n")
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return fmt.Sprintf("%dth", n)
	case n%10 == 1:
		return fmt.Sprintf("%dst", n)
	case n%10 == 2:
		return fmt.Sprintf("%dnd", n)
	case n%10 == 3:
		return fmt.Sprintf("%drd", n)
	}
	return fmt.Sprintf("%dth", n)
}

// maxMeasureRows is how many measures one chart draws.
const maxMeasureRows = 24

// measureChart draws each measure's distribution on one scale: a bar to
// its p50, a lighter one to its p99, a tick at its max, and the budget as
// a red line, so a latency that passes by a hair shows as one.
func measureChart(b *bytes.Buffer, ms []Measure) {
	const labelW, w, rowH = 240.0, 640.0, 16.0
	shown := ms[:min(len(ms), maxMeasureRows)]
	var top time.Duration
	for _, m := range shown {
		top = max(top, m.Max, m.P99, m.Budget)
	}
	if top <= 0 {
		top = time.Second
	}
	x := func(d time.Duration) float64 { return labelW + float64(d)/float64(top)*(w-labelW-60) }
	h := float64(len(shown))*rowH + 16
	fmt.Fprintf(b, "<figure class=\"chart\"><svg viewBox=\"0 0 %s %s\" role=\"img\">", num(w), num(h))
	for i, m := range shown {
		y := float64(i) * rowH
		fmt.Fprintf(b, "<g><title>%s: %d samples, p50 %s, p99 %s, max %s, budget %s</title>", esc(m.Name), m.Count,
			esc(fmtDur(m.P50)), esc(fmtDur(m.P99)), esc(fmtDur(m.Max)), esc(budget(m)))
		fmt.Fprintf(b, "<text x=\"0\" y=\"%s\">%s</text>", num(y+12), esc(elide(m.Name, 36)))
		fmt.Fprintf(b, "<rect class=\"p99\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"10\"/>", num(labelW), num(y+3), num(x(m.P99)-labelW))
		fmt.Fprintf(b, "<rect class=\"p50\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"10\"/>", num(labelW), num(y+3), num(x(m.P50)-labelW))
		fmt.Fprintf(b, "<line class=\"max\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>", num(x(m.Max)), num(x(m.Max)), num(y+1), num(y+15))
		fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\">%s</text></g>", num(x(m.Max)+4), num(y+12), esc(fmtDur(m.Max)))
		if m.Budget > 0 {
			fmt.Fprintf(b, "<line class=\"budget\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"><title>budget %s</title></line>",
				num(x(m.Budget)), num(x(m.Budget)), num(y), num(y+rowH), esc(fmtDur(m.Budget)))
		}
	}
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" class=\"key\">p50 ▮ p99 ▮ max | budget in red</text></svg>", num(labelW), num(h-2))
	if len(ms) > maxMeasureRows {
		fmt.Fprintf(b, "<p class=\"meta\">%d of %d measures drawn; the JSON report has them all.</p>", maxMeasureRows, len(ms))
	}
	b.WriteString("</figure>\n")
}
