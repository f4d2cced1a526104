package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance/stackable"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/timeline"
)

// A stackable run's timeline, analyzed as a recording (out of its report
// directory), gets the verdicts the run gave, judged as the events pass;
// with the operator's writes taken out it proves nothing: NOT JUDGED
// (exit 4), saying no write of the operator was seen and how to name its
// field managers.
func TestAnalyzeStackableRecording(t *testing.T) {
	const name = "stackable-pod-failed"
	data, err := os.ReadFile(filepath.Join("..", "..", "conformance", "stackable", "testdata", "golden", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.BuiltinNamed(name)
	if err != nil {
		t.Fatal(err)
	}
	var events []timeline.Event
	var silent bytes.Buffer // the timeline as recorded, without the operator's writes
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		var e timeline.Event
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
		// A recording has no process events.
		if e.Role != stackable.RoleOperator && e.Object.Kind != timeline.KindProcess {
			silent.Write(append(lines.Bytes(), '\n'))
		}
	}
	dir := t.TempDir()
	until := sc.Duration.Duration.String()

	out := filepath.Join(dir, "out")
	r := opcert(t, nil, "analyze", write(t, dir, name+".jsonl", string(data)), "--mechanism", "stackable", "--until", until, "--out", out)
	if r.code != exitPass {
		t.Fatalf("exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	run := readReport(t, out).Runs[0]
	want := judge.Judge(stackable.Mechanism(stackable.DefaultConfig()).Rules(), events, timeline.Epoch.Add(sc.Duration.Duration))
	if len(run.Cases) != len(want)+1 { // and the scenario's expectations
		t.Fatalf("%d cases, want %d and EXPECT", len(run.Cases), len(want))
	}
	passed := 0
	for i, w := range want {
		if c := run.Cases[i]; c.Rule != w.Rule || c.Status != w.Status || c.Message != w.Message || len(c.Evidence) != len(w.Evidence) {
			t.Errorf("%s: analyzed %s %q, the run's %s %s %q", w.Rule, c.Status, c.Message, w.Rule, w.Status, w.Message)
		}
		if w.Status == "pass" {
			passed++
		}
	}
	if passed < 5 || len(run.NotJudged) > 0 {
		t.Errorf("%d rules passed, not judged %q; want the run's verdicts, judged", passed, run.NotJudged)
	}

	r = opcert(t, nil, "analyze", write(t, dir, "silent.jsonl", silent.String()), "--mechanism", "stackable", "--until", until, "--out", filepath.Join(dir, "silent"))
	if r.code != exitNotJudged || !strings.Contains(r.stdout, "no write by the operator was seen") || !strings.Contains(r.stdout, "--stackable-operator-manager") {
		t.Errorf("a recording without the operator's writes: exit %d, want 4 saying why\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// In a kubectl stream the writes of the managers --stackable-operator-manager
// names are the operator's, and only theirs: a SampleCluster created with
// kubectl and given its status by my-operator is judged with the flag and
// NOT JUDGED without it.
func TestAnalyzeStackableKubectlStream(t *testing.T) {
	created := `{"apiVersion":"samples.opcert.io/v1alpha1","kind":"SampleCluster","metadata":{"name":"c1","namespace":"data","resourceVersion":"1",
"managedFields":[{"manager":"kubectl-create","operation":"Update","apiVersion":"samples.opcert.io/v1alpha1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{}}}}]},
"spec":{"roles":[]}}`
	conds := `[{"type":"Available","status":"False","lastTransitionTime":"2026-01-01T00:00:05Z","reason":"NoReplicas","message":"no role runs"},
{"type":"Paused","status":"False","lastTransitionTime":"2026-01-01T00:00:05Z","reason":"Reconciled","message":"reconciled"},
{"type":"Stopped","status":"False","lastTransitionTime":"2026-01-01T00:00:05Z","reason":"Running","message":"running"}]`
	status := `{"apiVersion":"samples.opcert.io/v1alpha1","kind":"SampleCluster","metadata":{"name":"c1","namespace":"data","resourceVersion":"2",
"managedFields":[{"manager":"kubectl-create","operation":"Update","apiVersion":"samples.opcert.io/v1alpha1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{}}}},
{"manager":"my-operator","operation":"Update","apiVersion":"samples.opcert.io/v1alpha1","time":"2026-01-01T00:00:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{".":{},"f:conditions":{}}},"subresource":"status"}]},
"spec":{"roles":[]},"status":{"conditions":` + conds + `}}`
	dir := t.TempDir()
	stream := write(t, dir, "c1.json", created+"\n"+status+"\n")

	out := filepath.Join(dir, "named")
	r := opcert(t, nil, "analyze", stream, "--mechanism", "stackable", "--stackable-operator-manager", "my-operator", "--until", "1m", "--out", out)
	if r.code != exitPass || !strings.Contains(r.stdout, "my-operator") {
		t.Fatalf("the operator's manager named: exit %d, want 0\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	judged := map[string]string{}
	for _, c := range readReport(t, out).Runs[0].Cases {
		judged[c.Rule] = string(c.Status)
	}
	if judged["STACKABLE-004"] != "pass" || judged["STACKABLE-007"] != "pass" {
		t.Errorf("verdicts %v; want STACKABLE-004 and 007 passed on my-operator's write", judged)
	}

	r = opcert(t, nil, "analyze", stream, "--mechanism", "stackable", "--until", "1m", "--out", filepath.Join(dir, "unnamed"))
	if r.code != exitNotJudged || !strings.Contains(r.stdout, "my-operator as no role") {
		t.Errorf("no operator manager named: exit %d, want 4 naming who wrote\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
