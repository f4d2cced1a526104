package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

func sameEvidence(a, b []timeline.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if reports.FormatEvent(a[i]) != reports.FormatEvent(b[i]) {
			return false
		}
	}
	return true
}

// opcert analyze reads what kubectl get clusteroperators -w -o json
// --show-managed-fields prints, tells the mechanism from the kind, and
// judges it: an answer 3s after the challenge fails a 1s budget, with the
// kubectl stream's tolerance (a second: its times are managedFields').
func TestAnalyzeKubectlStream(t *testing.T) {
	w := sharedWorld(t)
	ctx := context.Background()
	c := w.Client
	var stream bytes.Buffer
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "kubectl-" + strings.ToLower(t.Name()[:4])}}
	print := func() {
		var got configv1.ClusterOperator
		if err := c.Get(ctx, client.ObjectKeyFromObject(co), &got); err != nil {
			t.Fatal(err)
		}
		got.APIVersion, got.Kind = "config.openshift.io/v1", "ClusterOperator"
		data, _ := json.MarshalIndent(&got, "", "    ")
		stream.Write(append(data, '\n'))
	}
	if err := c.Create(ctx, co, client.FieldOwner("etcd-operator")); err != nil {
		t.Fatal(err)
	}
	print()
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "AsExpected", Message: "All is well", LastTransitionTime: ltt}}
	for _, step := range []struct {
		manager, prefix string
		after           time.Duration
	}{{"etcd-operator", "", 0}, {"stale-detector", seedChallenge, 0}, {"etcd-operator", "", 3 * time.Second}} {
		time.Sleep(step.after) // the operator's answer time is what is judged
		co.Status.Conditions[0].Message = step.prefix + "All is well"
		if err := c.Status().Update(ctx, co, client.FieldOwner(step.manager)); err != nil {
			t.Fatal(err)
		}
		print()
	}
	dir := t.TempDir()
	file := write(t, dir, "co.json", stream.String())
	out := filepath.Join(dir, "report")
	r := opcert(t, nil, "analyze", file, "--answer-budget", "1s", "--unknown-after", "1m", "--out", out)
	if r.code != exitFail {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	run := runOf(t, readReport(t, out), "stale")
	if rec := run.Recording; rec == nil || rec.Format != "kubectl-watch-json" || rec.Events != 4 || rec.Tolerance != time.Second {
		t.Errorf("recording %+v, want 4 events of a kubectl stream judged with a second's tolerance", rec)
	}
	c7 := caseOf(t, run, "STALE-007")
	if c7.Status != reports.Fail || !strings.Contains(c7.Message, "reset after 3s") || len(c7.Evidence) != 2 ||
		c7.Evidence[0].Actor != "stale-detector" || c7.Evidence[1].Actor != "etcd-operator" {
		t.Errorf("STALE-007: %s %q %+v", c7.Status, c7.Message, c7.Evidence)
	}
	if _, err := os.Stat(filepath.Join(out, run.Timeline)); err != nil {
		t.Errorf("the stream's timeline is not in the report: %v", err)
	}
}

// runOf is the run a report gives to a mechanism.
func runOf(t *testing.T, rep reports.Report, mechanism string) reports.Run {
	t.Helper()
	for _, r := range rep.Runs {
		if r.Subjects["mechanism"] == mechanism {
			return r
		}
	}
	t.Fatalf("no run of %s", mechanism)
	return reports.Run{}
}

// kubectlStream plays a ClusterOperator's writes on the server, each by its
// field manager, and returns what kubectl get -w -o json
// --show-managed-fields prints of its versions.
func kubectlStream(t *testing.T, name string, writes []streamWrite) string {
	t.Helper()
	c := sharedWorld(t).Client
	ctx := context.Background()
	var stream bytes.Buffer
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
	print := func() {
		var got configv1.ClusterOperator
		if err := c.Get(ctx, client.ObjectKeyFromObject(co), &got); err != nil {
			t.Fatal(err)
		}
		got.APIVersion, got.Kind = "config.openshift.io/v1", "ClusterOperator"
		data, _ := json.MarshalIndent(&got, "", "    ")
		stream.Write(append(data, '\n'))
	}
	if err := c.Create(ctx, co, client.FieldOwner(writes[0].manager)); err != nil {
		t.Fatal(err)
	}
	print()
	for _, w := range writes {
		co.Status.Conditions = w.conditions
		if err := c.Status().Update(ctx, co, client.FieldOwner(w.manager)); err != nil {
			t.Fatal(err)
		}
		print()
	}
	return stream.String()
}

type streamWrite struct {
	manager    string
	conditions []configv1.ClusterOperatorStatusCondition
}

// A captured ClusterOperator stream is judged by both mechanisms that
// record ClusterOperators, one run each, unless --mechanism names one: its
// operator's lower-case message warns CO-021 and its Degraded=True without
// a message CO-024 (failures with --strict), and its Available turning
// False with its lastTransitionTime kept fails CO-020.
func TestAnalyzeClusterOperatorStream(t *testing.T) {
	ltt := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	cond := func(typ configv1.ClusterStatusConditionType, status configv1.ConditionStatus, message string) configv1.ClusterOperatorStatusCondition {
		return configv1.ClusterOperatorStatusCondition{Type: typ, Status: status, Reason: "AsExpected", Message: message, LastTransitionTime: ltt}
	}
	available := cond(configv1.OperatorAvailable, configv1.ConditionTrue, "all is well")
	dir := t.TempDir()
	degraded := write(t, dir, "degraded.json", kubectlStream(t, "co-degraded", []streamWrite{
		{"network-operator", []configv1.ClusterOperatorStatusCondition{available}},
		{"network-operator", []configv1.ClusterOperatorStatusCondition{cond(configv1.OperatorAvailable, configv1.ConditionFalse, "all is down"),
			cond(configv1.OperatorDegraded, configv1.ConditionTrue, "")}},
	}))
	lower := write(t, dir, "lower.json", kubectlStream(t, "co-lower", []streamWrite{
		{"dns-operator", []configv1.ClusterOperatorStatusCondition{available}},
	}))
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		runs  []string // the runs' names, in order
		cases map[string]reports.Status
	}{
		{"both mechanisms", []string{degraded}, exitFail, []string{"degraded-clusteroperator", "degraded-stale"},
			map[string]reports.Status{"CO-021": reports.Warn, "CO-024": reports.Warn, "CO-020": reports.Fail}},
		{"strict", []string{degraded, "--strict"}, exitFail, []string{"degraded-clusteroperator", "degraded-stale"},
			map[string]reports.Status{"CO-021": reports.Fail, "CO-024": reports.Fail}},
		{"one mechanism", []string{degraded, "--mechanism", "clusteroperator"}, exitFail, []string{"degraded"},
			map[string]reports.Status{"CO-021": reports.Warn, "CO-024": reports.Warn, "CO-020": reports.Fail}},
		{"a warning passes", []string{lower, "--mechanism", "clusteroperator"}, exitPass, []string{"lower"},
			map[string]reports.Status{"CO-021": reports.Warn, "CO-024": reports.Skip}},
		{"a warning fails when strict", []string{lower, "--mechanism", "clusteroperator", "--strict"}, exitFail, []string{"lower"},
			map[string]reports.Status{"CO-021": reports.Fail}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report")
			r := opcert(t, nil, append([]string{"analyze", "--out", out}, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.code, tc.code, r.stdout, r.stderr)
			}
			rep := readReport(t, out)
			var names []string
			timelines := map[string]bool{}
			for _, run := range rep.Runs {
				names = append(names, run.Scenario)
				timelines[run.Timeline] = true
				if _, err := os.Stat(filepath.Join(out, run.Timeline)); err != nil {
					t.Errorf("%s: %v", run.Scenario, err)
				}
			}
			if strings.Join(names, " ") != strings.Join(tc.runs, " ") || len(timelines) != len(rep.Runs) {
				t.Fatalf("runs %v with timelines %v, want %v, each its own", names, timelines, tc.runs)
			}
			run := runOf(t, rep, "clusteroperator")
			for rule, want := range tc.cases {
				if c := caseOf(t, run, rule); c.Status != want {
					t.Errorf("%s: %s %q, want %s", rule, c.Status, c.Message, want)
				}
			}
			if c := caseOf(t, run, "CO-024"); c.Status == reports.Fail && (len(c.Evidence) != 1 || c.Evidence[0].Role != "operator" || c.Evidence[0].Actor != "network-operator") {
				t.Errorf("CO-024 evidence %+v, want the operator's write", c.Evidence)
			}
		})
	}
}

// Files that are no timeline, flags that make no sense and an --out that
// is not opcert's are refused with exit 2, and nothing is written.
func TestAnalyzeRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{write(t, dir, "notes.txt", "hello\n")}, "neither an opcert timeline"},
		{[]string{write(t, dir, "pod.json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}`)}, "--show-managed-fields"},
		{[]string{write(t, dir, "late.jsonl", `{"time":"2026-01-01T00:01:00Z","actor":"a","verb":"v"}`+"\n"+`{"time":"2026-01-01T00:00:00Z","actor":"a","verb":"v"}`), "--mechanism", "stale"}, "goes back"},
		{[]string{write(t, dir, "secrets.jsonl", `{"time":"2026-01-01T00:00:00Z","actor":"a","verb":"create","object":{"kind":"Secret","name":"s"}}`)}, "which no mechanism records"},
		{[]string{filepath.Join(dir, "missing.jsonl")}, "missing.jsonl"},
		{[]string{dir}, "is not a file"},
		{[]string{write(t, dir, "x.jsonl", ""), "--mechanism", "nosuch"}, `no such mechanism`},
	} {
		r := opcert(t, nil, append([]string{"analyze", "--out", out}, tc.args...)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused analysis wrote its report directory")
	}
}
