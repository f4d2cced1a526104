package reports

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

var widget = timeline.ObjectRef{Kind: "Widget", Namespace: "default", Name: "w1"}

// testReport has one passing run, one failing run with evidence and
// measures, and one run that could not complete.
func testReport() *Report {
	stale := Measure{Name: "stale-answer Widget/default/w1", Count: 4, P50: 30 * time.Second,
		P99: 90 * time.Second, Max: 2 * time.Minute, Budget: time.Minute}
	return &Report{
		Tool:      "opcert",
		StartedAt: time.Date(2026, time.May, 1, 12, 0, 0, 0, time.UTC),
		Wall:      3456789 * time.Microsecond,
		Environment: Environment{KubeVersion: "v1.36.3", EtcdVersion: "3.6.5",
			Assets: "/opt/assets", Startup: 2345678901},
		Runs: []Run{{
			Scenario: "steady",
			Subjects: map[string]string{"operator": "ref-good"},
			Virtual:  time.Hour,
			Wall:     1500 * time.Millisecond,
			APICalls: 120,
			Cases: []Case{
				{Rule: "STALE-001", Section: "000 §Proposal", Statement: "Stale conditions are answered.",
					Role: "operator", Status: Pass,
					Measures: []Measure{{Name: "stale-answer", Count: 3, P50: time.Second, P99: 2 * time.Second, Max: 2 * time.Second}}},
				{Rule: "EXPECT", Section: "steady", Statement: "Ready becomes True.", Role: "operator", Status: Pass},
				{Rule: "STALE-002", Section: "000 §Restarts", Statement: "Restarts reset nothing.",
					Role: "operator", Status: Skip, Message: "no restart happened"},
			},
		}, {
			Scenario:    "restart",
			Description: "The operator dies and comes back.",
			Subjects:    map[string]string{"peer": "ref-good", "operator": "ref-lazy"},
			Virtual:     2 * time.Hour,
			Wall:        1234567 * time.Microsecond,
			APICalls:    340,
			Timeline:    "restart.jsonl",
			Cases: []Case{
				{Rule: "STALE-001", Section: "000 §Proposal", Statement: "Stale conditions are answered.",
					Role: "operator", Status: Fail, Message: `Ready stayed "True" for 10m after the operator died`,
					Measures: []Measure{stale},
					Evidence: []timeline.Event{
						{Time: timeline.Epoch.Add(5 * time.Minute), Actor: "scenario", Verb: timeline.VerbKill, Detail: "operator-0"},
						{Time: timeline.Epoch.Add(10 * time.Minute), Actor: "operator-0", Verb: timeline.VerbUpdateStatus, Object: widget,
							Conditions: []timeline.ConditionChange{{Type: "Ready",
								Before: &timeline.Condition{Status: "True", Message: "ok"},
								After:  &timeline.Condition{Status: "True", Message: "ok | still"}}}},
					}},
				{Rule: "EXPECT", Section: "restart", Statement: "Ready becomes True.", Role: "operator", Status: Pass},
			},
		}, {
			Scenario: "crash",
			Subjects: map[string]string{"operator": "ref-broken"},
			Virtual:  time.Minute,
			Wall:     20 * time.Millisecond,
			APICalls: 7,
			Error:    "api server went away",
			Stopped:  StopSubject,
			Reached:  30 * time.Second,
			Cases:    []Case{{Rule: "EXPECT", Section: "crash", Statement: "Ready becomes True.", Role: "operator", Status: Pass}},
		}},
	}
}

func TestFormatEvent(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    timeline.Event
		want string
	}{
		{"no object", timeline.Event{Time: timeline.Epoch, Actor: "scenario", Verb: "start", Detail: "operator-0"},
			"+0s scenario start (operator-0)"},
		{"condition added and removed", timeline.Event{Time: timeline.Epoch.Add(90 * time.Second), Actor: "op", Verb: "update-status", Object: widget,
			Conditions: []timeline.ConditionChange{
				{Type: "Ready", After: &timeline.Condition{Status: "False", Message: "stale"}},
				{Type: "Degraded", Before: &timeline.Condition{Status: "True"}},
			}},
			`+1m30s op update-status Widget/default/w1 Ready: absent -> False/"stale"; Degraded: True/"" -> absent`},
		{"failed write", timeline.Event{Time: timeline.Epoch.Add(time.Hour), Actor: "op", Verb: "create",
			Object: timeline.ObjectRef{Kind: "Lease", Name: "l"}, Failed: true},
			"+1h0m0s op create Lease/l [failed]"},
		{"before the epoch", timeline.Event{Time: timeline.Epoch.Add(-time.Second), Actor: "op", Verb: "hang"},
			"-1s op hang"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatEvent(tc.e); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestDurations(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{fmtDur(1234567891), "1.235s"},
		{fmtDur(12345678), "12.346ms"},
		{fmtDur(2 * time.Hour), "2h0m0s"},
		{fmtDur(-1500 * time.Millisecond), "-1.5s"},
		{speedup(time.Hour, 1500*time.Millisecond), "2400x"},
		{speedup(time.Second, 500*time.Millisecond), "2.0x"},
		{speedup(time.Second, 0), "-"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Independent of the writer's structs, so a misspelt attribute fails.
type xmlProblem struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

type xmlCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type xmlDoc struct {
	XMLName xml.Name `xml:"testsuites"`
	xmlCounts
	Suites []struct {
		xmlCounts
		Cases []struct {
			Name      string      `xml:"name,attr"`
			Classname string      `xml:"classname,attr"`
			Failure   *xmlProblem `xml:"failure"`
			Error     *xmlProblem `xml:"error"`
			Skipped   *xmlProblem `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestWriteJUnit(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, testReport()); err != nil {
		t.Fatal(err)
	}
	var doc xmlDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	want := []xmlCounts{
		{Name: "opcert", Tests: 7, Failures: 1, Errors: 1, Skipped: 1, Time: "3.457"},
		{Name: "steady [operator=ref-good]", Tests: 3, Skipped: 1, Time: "1.500"},
		{Name: "restart [operator=ref-lazy,peer=ref-good]", Tests: 2, Failures: 1, Time: "1.235"},
		{Name: "crash [operator=ref-broken]", Tests: 2, Errors: 1, Time: "0.020"},
	}
	got := []xmlCounts{doc.xmlCounts}
	for _, s := range doc.Suites {
		got = append(got, s.xmlCounts)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counts:\ngot  %+v\nwant %+v", got, want)
	}

	skip := doc.Suites[0].Cases[2]
	if skip.Name != "STALE-002 Restarts reset nothing." || skip.Classname != "opcert.steady" ||
		skip.Skipped == nil || skip.Skipped.Message != "no restart happened" {
		t.Errorf("skipped case: %+v", skip)
	}
	fail := doc.Suites[1].Cases[0]
	if fail.Failure == nil || fail.Failure.Message != `Ready stayed "True" for 10m after the operator died` {
		t.Fatalf("failed case: %+v", fail)
	}
	for _, line := range []string{
		`Ready stayed "True" for 10m after the operator died`,
		"section: 000 §Proposal",
		"measure stale-answer Widget/default/w1: count=4 p50=30s p99=1m30s max=2m0s budget=1m0s",
		"  +5m0s scenario kill (operator-0)",
		`  +10m0s operator-0 update-status Widget/default/w1 Ready: "ok" -> "ok | still"`,
	} {
		if !slices.Contains(strings.Split(fail.Failure.Body, "\n"), line) {
			t.Errorf("failure body lacks line %q:\n%s", line, fail.Failure.Body)
		}
	}
	runCase := doc.Suites[2].Cases[1]
	if runCase.Name != "run" || runCase.Error == nil || runCase.Error.Message != "api server went away" {
		t.Errorf("run error case: %+v", runCase)
	}
}

func TestWriteJSONRoundTrip(t *testing.T) {
	r := testReport()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n  \"runs\": [") {
		t.Errorf("not indented:\n%s", buf.String())
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, r) {
		t.Errorf("round trip changed the report:\ngot  %+v\nwant %+v", back, *r)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, testReport()); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# opcert report: FAIL\n",
		"- Kubernetes: v1.36.3\n- etcd: 3.6.5\n- API server start-up: 2.346s\n",
		"| steady | operator=ref-good | 1h0m0s | 1.5s | 2400x | 120 | PASS | 1 of 2 | 2 | 0 | 0 | 1 |\n",
		"| restart | operator=ref-lazy,peer=ref-good | 2h0m0s | 1.235s | 5832x | 340 | FAIL | 1 of 1 | 1 | 0 | 1 | 0 |\n",
		"| crash | operator=ref-broken | 1m0s | 20ms | 1500x | 7 | FAIL | 0 of 0 | 1 | 0 | 0 | 0 |\n",
		"## restart [operator=ref-lazy,peer=ref-good]\n\nThe operator dies and comes back.\n",
		"| STALE-001 | 000 §Proposal | Stale conditions are answered. | FAIL |\n",
		"| STALE-002 | 000 §Restarts | Restarts reset nothing. | SKIP |\n",
		"**The run could not complete** (stopped (subject) at 30s of 1m0s): api server went away\n",
		"### STALE-001 FAIL: Stale conditions are answered.\n",
		"| stale-answer Widget/default/w1 | 4 | 30s | 1m30s | 2m0s | 1m0s |\n",
		"```\n+5m0s scenario kill (operator-0)\n" +
			`+10m0s operator-0 update-status Widget/default/w1 Ready: "ok" -> "ok | still"` + "\n```\n",
		// A passing case with measures still shows them.
		"### STALE-001 PASS: Stale conditions are answered.\n",
		"| stale-answer | 3 | 1s | 2s | 2s | - |\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "### EXPECT") {
		t.Errorf("passing case without measures got a section:\n%s", md)
	}
}

func TestFence(t *testing.T) {
	for text, want := range map[string]string{"plain": "```", "a ``` b": "````", "`x`": "```"} {
		if got := fence(text); got != want {
			t.Errorf("fence(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestWriteSummary(t *testing.T) {
	var buf bytes.Buffer
	WriteSummary(&buf, testReport())
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := [][]string{
		{"SCENARIO", "SUBJECTS", "VERDICT", "JUDGED", "PASS", "WARN", "FAIL", "SKIP", "VIRTUAL", "WALL", "SPEED-UP", "API", "CALLS"},
		{"steady", "operator=ref-good", "PASS", "1/2", "2", "0", "0", "1", "1h0m0s", "1.5s", "2400x", "120"},
		{"restart", "operator=ref-lazy,peer=ref-good", "FAIL", "1/1", "1", "0", "1", "0", "2h0m0s", "1.235s", "5832x", "340"},
		{"crash", "operator=ref-broken", "FAIL", "0/0", "1", "0", "0", "0", "1m0s", "20ms", "1500x", "7"}, // 30s reached in 20ms
	}
	if len(lines) != len(want)+3 {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), len(want)+3, buf.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); !slices.Equal(got, w) {
			t.Errorf("line %d: got %q, want %q", i, got, w)
		}
	}
	for i, w := range []string{
		`FAIL STALE-001 restart [operator=ref-lazy,peer=ref-good]: Ready stayed "True" for 10m after the operator died`,
		"ERROR run crash [operator=ref-broken]: api server went away",
		"FAIL: 3 runs (1 could not complete), 2 of 3 rules judged: 4 passed, 0 warned, 1 failed, 1 skipped in 3.457s",
	} {
		if got := lines[len(want)+i]; got != w {
			t.Errorf("got  %s\nwant %s", got, w)
		}
	}
}

func TestWriteAll(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "nested")
	if err := WriteAll(dir, testReport()); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Equal(got, []string{"junit.xml", "report.html", "report.json", "report.md"}) {
		t.Errorf("files: %v", got)
	}
	for _, name := range []string{"junit.xml", "report.html", "report.json", "report.md"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err != nil || fi.Size() == 0 || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v", name, fi, err)
		}
	}
}

func TestWriteAllFailureLeavesNothing(t *testing.T) {
	saved := files
	t.Cleanup(func() { files = saved })
	boom := errors.New("boom")
	files = append(slices.Clone(saved), struct {
		name  string
		write func(io.Writer, *Report) error
	}{"broken", func(w io.Writer, _ *Report) error {
		io.WriteString(w, "partial")
		return boom
	}})
	dir := t.TempDir()
	if err := WriteAll(dir, testReport()); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("left files behind: %v", got)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A run stopped by its environment or a signal proved nothing: it is never
// PASS or FAIL, whatever its cases say.
func TestVerdictOfStoppedRuns(t *testing.T) {
	failed := []Case{{Rule: "R", Status: Fail}}
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Cases: []Case{{Status: Pass}}}, "PASS"},
		{Run{Cases: failed}, "FAIL"},
		{Run{Error: "livelock", Stopped: StopSubject}, "FAIL"},
		{Run{Error: "gone", Stopped: StopEnvironment, Cases: failed}, "ERROR"},
		{Run{Error: "refused", Stopped: StopScenario}, "ERROR"},
		{Run{Error: "ctrl-c", Stopped: StopInterrupted, Cases: failed}, "INTERRUPTED"},
	} {
		if got := tc.run.verdict(); got != tc.want {
			t.Errorf("%+v: verdict %s, want %s", tc.run, got, tc.want)
		}
	}
	r := &Report{Runs: []Run{{Cases: failed}, {Stopped: StopEnvironment, Error: "gone"}}}
	if !r.Failed() || !r.Errored() {
		t.Errorf("Failed %v, Errored %v: want both", r.Failed(), r.Errored())
	}
	var b strings.Builder
	WriteSummary(&b, r)
	if !strings.Contains(b.String(), "ERROR: 2 runs") {
		t.Errorf("an errored report must not sum up as PASS or FAIL:\n%s", b.String())
	}
}

// A run stopped early played only what it reached in its wall time: its
// speed-up is of that, not of the scenario's whole length.
func TestSpeedupOfStoppedRuns(t *testing.T) {
	for _, tc := range []struct {
		run  Run
		want string
	}{
		{Run{Virtual: time.Hour, Reached: time.Hour, Wall: time.Second}, "3600x"},
		{Run{Virtual: time.Hour, Reached: 6 * time.Minute, Wall: time.Second, Stopped: StopInterrupted}, "360x"},
		{Run{Virtual: time.Hour, Reached: 3 * time.Second, Wall: time.Second, Stopped: StopSubject, Error: "livelock"}, "3.0x"},
		{Run{Virtual: time.Hour}, "-"},
	} {
		if got := tc.run.speedup(); got != tc.want {
			t.Errorf("%+v: speed-up %s, want %s", tc.run, got, tc.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	a := &Report{Tool: "opcert", StartedAt: time.Now(), Wall: time.Second, Environment: Environment{KubeVersion: "v1", Assets: "/a", Startup: time.Second},
		Runs: []Run{{Scenario: "s", Virtual: time.Hour, Wall: time.Millisecond, MedianCall: time.Microsecond, APICalls: 3}}}
	b := &Report{Tool: "opcert", StartedAt: time.Now().Add(time.Hour), Wall: 2 * time.Second, Environment: Environment{KubeVersion: "v1", Assets: "/b", Startup: 2 * time.Second},
		Runs: []Run{{Scenario: "s", Virtual: time.Hour, Wall: 2 * time.Millisecond, MedianCall: 2 * time.Microsecond, APICalls: 3}}}
	a.Normalize()
	b.Normalize()
	for _, write := range []func(io.Writer, *Report) error{WriteJSON, WriteJUnit, WriteMarkdown} {
		var x, y bytes.Buffer
		if err := errors.Join(write(&x, a), write(&y, b)); err != nil {
			t.Fatal(err)
		}
		if x.String() != y.String() {
			t.Errorf("normalized reports differ:\n%s\n%s", x.String(), y.String())
		}
		if strings.Contains(x.String(), "0001-01-01") {
			t.Errorf("a normalized report shows the zero time:\n%s", x.String())
		}
	}
}
