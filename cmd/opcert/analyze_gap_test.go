package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// A timeline that ends in a recording gap never resumed (what a watch
// killed while its cluster was gone leaves, or a capture cut there) is
// judged as watch judges its own: the run ERROR, every rule that had
// passed not judged from the gap's start, stderr saying so, exit 3. It
// passed, exit 0. A gap that closed before the end changes nothing.
func TestAnalyzeOfATimelineEndingInAGapIsAnEnvironmentError(t *testing.T) {
	dir := t.TempDir()
	lost := timeline.Event{Actor: timeline.ActorRecorder, Verb: timeline.VerbLost,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: "ClusterOperator.config.openshift.io"},
		Detail: "the watch could not start again: connection refused"}
	resumed := lost
	resumed.Verb, resumed.Detail = timeline.VerbResumed, "listed ClusterOperator.config.openshift.io again at resourceVersion 7"
	stop := timeline.Event{Actor: timeline.ActorRecorder, Verb: timeline.VerbStop,
		Object: timeline.ObjectRef{Kind: timeline.KindRecording, Name: "ClusterOperator.config.openshift.io"}, Detail: "the recording ended"}

	closed := gapTimeline(t, dir, "closed.jsonl", lost, resumed, stop)
	r := opcert(t, nil, "analyze", "--mechanism", "stale", closed, "--out", filepath.Join(dir, "closed"))
	if r.code != exitPass {
		t.Fatalf("a gap that closed: exit %d, want 0 as before\n%s", r.code, r.stderr)
	}
	if run := readReport(t, filepath.Join(dir, "closed")).Runs[0]; run.Stopped != "" || len(run.Recording.Gaps) != 1 || run.Recording.Gaps[0].Open {
		t.Errorf("a gap that closed: stopped %q, gaps %+v, want one closed gap and the run judged", run.Stopped, run.Recording.Gaps)
	}

	open := gapTimeline(t, dir, "open.jsonl", lost, stop)
	out := filepath.Join(dir, "open")
	r = opcert(t, nil, "analyze", "--mechanism", "stale", open, "--out", out)
	if r.code != exitEnv {
		t.Fatalf("a timeline ending in a gap: exit %d, want 3\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, say := range []string{"open.jsonl", "lost ClusterOperator.config.openshift.io", "connection refused", "never reached it again", "ERROR"} {
		if !strings.Contains(r.stderr, say) {
			t.Errorf("stderr does not say %q:\n%s", say, r.stderr)
		}
	}
	run := readReport(t, out).Runs[0]
	if run.Stopped != reports.StopEnvironment || !strings.Contains(run.Error, "lost ClusterOperator.config.openshift.io") {
		t.Errorf("report: stopped %q, error %q, want the environment's fault naming the loss", run.Stopped, run.Error)
	}
	if g := run.Recording.Gaps; len(g) != 1 || !g[0].Open {
		t.Errorf("gaps %+v, want one, open", g)
	}
	notJudged := 0
	for _, c := range run.Cases {
		switch {
		case c.Status == reports.Pass:
			t.Errorf("%s passed on a timeline that ends in a gap: %s", c.Rule, c.Message)
		case c.Status == reports.Skip && strings.Contains(c.Message, "not judged from +"):
			notJudged++
		}
	}
	if notJudged == 0 {
		t.Errorf("no rule says it was not judged from the gap: %+v", run.Cases)
	}
	if md := readFile(t, filepath.Join(out, "report.md")); !strings.Contains(md, "never resumed") {
		t.Errorf("report.md does not say the gap never resumed:\n%s", md)
	}
}

// gapTimeline is a stale timeline whose every rule passes, followed by
// the recorder's events tail, a second apart, numbered on.
func gapTimeline(t *testing.T, dir, name string, tail ...timeline.Event) string {
	t.Helper()
	data, err := os.ReadFile(benchTimeline(t, 140))
	if err != nil {
		t.Fatal(err)
	}
	var last timeline.Event
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatal(err)
		}
	}
	text := string(data)
	for i, e := range tail {
		e.Seq, e.Time = last.Seq+i+1, last.Time.Add(time.Duration(i+1)*time.Second)
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		text += string(line) + "\n"
	}
	return write(t, dir, name, text)
}
