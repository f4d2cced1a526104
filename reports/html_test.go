package reports

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// htmlRun is a failing run with its timeline: a Widget whose Ready goes
// False when its operator dies, a node file, a probe; the case cites the
// death and the write.
func htmlRun() (Run, []byte) {
	at := func(d time.Duration) time.Time { return timeline.Epoch.Add(d) }
	proc := timeline.ObjectRef{Kind: timeline.KindProcess, Name: "operator-0"}
	file := timeline.ObjectRef{Kind: timeline.KindFile, Namespace: "node-a", Name: "/etc/manifest.yaml"}
	probe := timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: "node-a", Name: "app/readyz"}
	ready := func(status, msg string) *timeline.Condition {
		return &timeline.Condition{Type: "Ready", Status: status, Message: msg}
	}
	events := []timeline.Event{
		{Time: at(0), Actor: "operator-0", Role: "operator", Verb: timeline.VerbStart, Object: proc},
		{Time: at(0), Actor: "operator-0", Role: "operator", Verb: timeline.VerbCreate, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Ready", After: ready("True", "ok")}}},
		{Time: at(time.Minute), Actor: "scenario", Role: "scenario", Verb: timeline.VerbWrite, Object: file, Detail: "revision=2"},
		{Time: at(2 * time.Minute), Actor: "operand", Role: "operand", Verb: timeline.VerbProbe, Object: probe, Detail: "200 OK"},
		{Time: at(5 * time.Minute), Actor: "scenario", Role: "scenario", Verb: timeline.VerbKill, Object: proc},
		{Time: at(10 * time.Minute), Actor: "detector", Role: "detector", Verb: timeline.VerbUpdateStatus, Object: widget,
			Conditions: []timeline.ConditionChange{{Type: "Ready", Before: ready("True", "ok"), After: ready("Unknown", "<stale> & late")}}},
	}
	for i := range events {
		events[i].Seq = i + 1
	}
	var tl bytes.Buffer
	t := &timeline.Timeline{}
	t.Append(events...)
	if err := t.WriteJSONL(&tl); err != nil {
		panic(err)
	}
	return Run{
		Scenario: "death", Mechanism: "widgets", Subjects: map[string]string{"operator": "lazy"},
		Virtual: time.Hour, Timeline: "timelines/01-death.jsonl",
		Cases: []Case{
			{Rule: "W-001", Section: "000 §Proposal", Statement: "Ready goes Unknown within 5m of a death.", Role: "operator", Status: Pass},
			{Rule: "W-002", Section: "000 §Proposal", Statement: "A dead operator's conditions are answered.", Role: "operator",
				Status: Fail, Message: "Ready went Unknown 5m after the death", Evidence: []timeline.Event{events[4], events[5]},
				Measures: []Measure{{Name: "answer Widget/default/w1", Count: 3, P50: time.Second, P99: 3 * time.Second, Max: 4 * time.Second, Budget: 2 * time.Second}}},
			{Rule: "W-003", Section: "000 §Restarts", Statement: "Restarts reset nothing.", Role: "operator", Status: Skip},
		},
	}, tl.Bytes()
}

func htmlReport() (*Report, fstest.MapFS) {
	run, tl := htmlRun()
	r := testReport()
	r.Runs = append([]Run{run}, r.Runs...)
	return r, fstest.MapFS{run.Timeline: {Data: tl}}
}

func render(t *testing.T, r *Report, fsys fs.FS) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, r, fsys); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteHTML(t *testing.T) {
	r, fsys := htmlReport()
	page := render(t, r, fsys)
	for _, tc := range []struct {
		what string
		want string
	}{
		{"the verdict", "<title>opcert report: FAIL</title>"},
		{"the fail count leads to the first failure", `<a id="fail-count" class="n fail" href="#ev-1-2">2 failed</a>`},
		{"the first failure's evidence", `<div class="case fail" id="ev-1-2">`},
		{"the seeds covered", "<dt>Seeds covered</dt><dd>000</dd>"},
		{"the mode", "<dt>Mode</dt><dd>virtual</dd>"},
		{"a failed chip names its run and links to its evidence", `<a class="v fail" href="#ev-1-2">death [operator=lazy]</a>`},
		{"a passing chip links to its run", `<a class="v pass" href="#run-1" title="death [operator=lazy]: passed">✓</a>`},
		{"the mechanism filter", "<option>widgets</option>"},
		{"a timeline per run", `<div class="tl" id="tl-1" data-span="3600" data-scale="1"`},
		{"the Ready lane: True, then Unknown from +10m", `<path class="b-True" d="M0 1h166.7v8h-166.7z"/><path class="b-Unknown" d="M166.7 1h833.3v8h-833.3z"/>`},
		{"the process dies at +5m", `<path class="b-down" d="M83.3 1h916.7v8h-916.7z"/><path class="b-up" d="M0 1h83.3v8h-83.3z"/>`},
		{"the death is a fault", `<g class="mk m-fault" tabindex="0"><title>+5m0s scenario kill Process/operator-0</title>`},
		{"the write after the start is a step", `<g class="mk m-step" tabindex="0"><title>+1m0s scenario write File/node-a//etc/manifest.yaml (revision=2)</title>`},
		{"a cited write links to its evidence, its diff escaped", `<a class="mk m-cite" href="#ev-1-2"><title>+10m0s detector update-status Widget/default/w1 Ready: True -&gt; Unknown, &#34;ok&#34; -&gt; &#34;&lt;stale&gt; &amp; late&#34;`},
		{"a node's files are one object", `files of node node-a`},
		{"the measure's budget", `<title>budget 2s</title>`},
		{"evidence with its whole diff", "Ready before: True &#34;ok&#34;\nReady after:  Unknown &#34;&lt;stale&gt; &amp; late&#34;</pre>"},
		{"a run without a timeline draws its evidence only", `<div class="tl" id="tl-3"`},
		{"the run's times", "1h0m0s of virtual time played in 1.5s of wall time (2400x)"},
		{"cited evidence on no object gets a row", `<span class="lbl" title="no object: 0 events">no object</span><svg viewBox="0 0 1000 10" preserveAspectRatio="none" role="img"><a class="mk m-cite" href="#ev-3-1">`},
	} {
		if !strings.Contains(page, tc.want) {
			t.Errorf("%s: page lacks %q", tc.what, tc.want)
		}
	}
	// The page is one file: nothing it loads comes from elsewhere.
	if m := regexp.MustCompile(`(?i)<(script|link|img)[^>]+(src|href)=|url\(|@import`).FindString(page); m != "" {
		t.Errorf("page loads something from outside: %q", m)
	}
	// Every link within the page lands on an element.
	for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if !strings.Contains(page, `id="`+m[1]+`"`) {
			t.Errorf("link to #%s lands nowhere", m[1])
		}
	}
}

func TestWriteHTMLTimelineTrouble(t *testing.T) {
	run, tl := htmlRun()
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"missing", fstest.MapFS{}, "The timeline could not be read (open timelines/01-death.jsonl: file does not exist)"},
		{"not a timeline", fstest.MapFS{run.Timeline: {Data: []byte("{\n")}}, "The timeline could not be read (timeline line 1:"},
		{"cut short", fstest.MapFS{run.Timeline: {Data: tl[:bytes.IndexByte(tl, '\n')+1]}}, `<div class="case fail" id="ev-1-2">`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := render(t, &Report{Tool: "opcert", Runs: []Run{run}}, tc.fsys)
			if !strings.Contains(page, tc.want) {
				t.Errorf("page lacks %q", tc.want)
			}
			// The evidence is drawn whatever became of the timeline.
			if !strings.Contains(page, `<a class="mk m-cite" href="#ev-1-2">`) {
				t.Error("the cited writes are not drawn")
			}
		})
	}
}

// The same report gives the same page, and a long run a small one.
func TestWriteHTMLLongRun(t *testing.T) {
	const objects, writes = 60, 10000
	var tl bytes.Buffer
	t0 := &timeline.Timeline{}
	for i := range writes {
		o := timeline.ObjectRef{Kind: "Widget", Name: fmt.Sprintf("w%02d", i%objects)}
		status := []string{"True", "False", "Unknown"}[i/objects%3]
		t0.Append(timeline.Event{Time: timeline.Epoch.Add(time.Duration(i) * 24 * time.Hour / writes), Actor: "op", Role: "operator",
			Verb: timeline.VerbUpdateStatus, Object: o,
			Conditions: []timeline.ConditionChange{{Type: "Ready", After: &timeline.Condition{Status: status}}}})
		if i%20 == 0 {
			t0.Append(timeline.Event{Time: timeline.Epoch.Add(time.Duration(i) * 24 * time.Hour / writes), Actor: "op", Role: "operator",
				Verb: timeline.VerbKill, Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: "op"}})
		}
	}
	if err := t0.WriteJSONL(&tl); err != nil {
		t.Fatal(err)
	}
	r := &Report{Tool: "opcert", Runs: []Run{{Scenario: "fleet", Virtual: 24 * time.Hour, Timeline: "fleet.jsonl"}}}
	fsys := fstest.MapFS{"fleet.jsonl": {Data: tl.Bytes()}}
	page := render(t, r, fsys)
	if again := render(t, r, fsys); again != page {
		t.Error("the same report gave two pages")
	}
	if n := len(page); n > 256<<10 {
		t.Errorf("a 24-hour run of %d writes takes %d KiB of page", writes, n>>10)
	}
	for _, want := range []string{
		"Widget <small>(60 objects)</small>",
		"20 other Widget",
		fmt.Sprintf("%d events; %d fault and step markers beyond the first %d left out", writes+writes/20, writes/20-maxMarkers, maxMarkers),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestTrack(t *testing.T) {
	for _, tc := range []struct {
		name string
		sets []bar // each a set(from, class); to unused
		want []bar
	}{
		{"one state", []bar{{0, 0, "True"}}, []bar{{0, 100, "True"}}},
		{"a change", []bar{{0, 0, "True"}, {40, 0, "False"}}, []bar{{0, 40, "True"}, {40, 100, "False"}}},
		{"a repeat is no change", []bar{{0, 0, "True"}, {40, 0, "True"}}, []bar{{0, 100, "True"}}},
		{"two changes at one instant leave the last", []bar{{0, 0, "True"}, {40, 0, "False"}, {40, 0, "Unknown"}},
			[]bar{{0, 40, "True"}, {40, 100, "Unknown"}}},
		{"flapping merges into one mixed bar", []bar{{0, 0, "True"}, {40, 0, "False"}, {40.1, 0, "True"}, {40.2, 0, "False"}, {40.3, 0, "True"}},
			[]bar{{0, 40, "True"}, {40, 40.3, barMixed}, {40.3, 100, "True"}}},
		{"an end", []bar{{0, 0, "True"}, {50, 0, ""}}, []bar{{0, 50, "True"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tr track
			for _, s := range tc.sets {
				tr.set(s.from, s.class)
			}
			tr.end(100)
			if fmt.Sprint(tr.bars) != fmt.Sprint(tc.want) {
				t.Errorf("bars %v, want %v", tr.bars, tc.want)
			}
		})
	}
}

func TestAxis(t *testing.T) {
	for _, tc := range []struct {
		span, a, b float64
		want       string
	}{
		{3600, 0, laneWidth, "0 +10m +20m +30m +40m +50m +1h"},
		{86400, 0, laneWidth, "0 +3h +6h +9h +12h +15h +18h +21h +24h"},
		{86400, 500, 510, "+12h +12h2m +12h4m +12h6m +12h8m +12h10m +12h12m +12h14m"},
		{2, 0, laneWidth, "0 +0.5s +1s +1.5s +2s"},
		{90, 0, laneWidth, "0 +15s +30s +45s +1m +1m15s +1m30s"},
		// Past 8 days, whole days that keep the count at 8 or fewer:
		// before, one tick a day of any span.
		{30 * 86400, 0, laneWidth, "0 +120h +240h +360h +480h +600h +720h"},
		{9 * 86400, 0, laneWidth, "0 +48h +96h +144h +192h"},
	} {
		var got []string
		for _, tick := range axisTicks(tc.span, tc.a, tc.b) {
			got = append(got, fmtOffset(tick.sec))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("axis of %gs from %g to %g: %q, want %q", tc.span, tc.a, tc.b, strings.Join(got, " "), tc.want)
		}
	}
	// A capture dated year 1 beside one of today: 2,025 years, 739,631
	// ticks before.
	if n := len(axisTicks(2025*365.25*86400, 0, laneWidth)); n < 2 || n > 9 {
		t.Errorf("axis of 2,025 years: %d ticks, want 2 to 9", n)
	}
}

func TestWriteHTMLFile(t *testing.T) {
	dir := t.TempDir()
	r, fsys := htmlReport()
	for name, f := range fsys {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteHTMLFile(dir, r); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := render(t, r, os.DirFS(dir)); string(got) != want {
		t.Error("report.html is not the page WriteHTML writes")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
