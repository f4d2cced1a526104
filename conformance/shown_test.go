package conformance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/reports"
)

func TestShown(t *testing.T) {
	for _, tc := range []struct {
		subject, want string
		n             int
	}{
		{"reference", "reference", 0},
		{"deployment:ops/{name}-operator", "deployment:ops/{name}-operator", 0},
		{"exec:./bin/manager --name {name}", "exec:./bin/manager --name {name}", 0},
		{"exec:/bin/op --token=abc123 -name {name}", "exec:/bin/op --token=REDACTED -name '{name}'", 1},
		{"exec:env OP_PASSWORD=pw /bin/op --api-key 'k 1' --server=https://u:p@h:6443", "exec:env OP_PASSWORD=REDACTED /bin/op --api-key REDACTED --server=https://REDACTED@h:6443", 3},
		{"exec:/bin/op --token=abc123 'unclosed", "exec:/bin/op --token=REDACTED 'unclosed", 0},
	} {
		got, n := conformance.Shown(tc.subject)
		if got != tc.want || n != tc.n {
			t.Errorf("Shown(%q) = %q, %d; want %q, %d", tc.subject, got, n, tc.want, tc.n)
		}
	}
}

// fakeHost gives processes a kubeconfig pointing nowhere: they are
// started and ended, never served.
type fakeHost struct{}

func (fakeHost) AddUser(string, string) ([]byte, *rest.Config, error) {
	return []byte("apiVersion: v1\nkind: Config\n"), &rest.Config{}, nil
}
func (fakeHost) RESTConfig() *rest.Config { return &rest.Config{Host: "https://127.0.0.1:1"} }
func (fakeHost) Writer(context.Context, string, time.Duration) (string, error) {
	return "", errors.New("not audited")
}

// TestSecretsInNoReport gives the stale operator's role an executable
// whose command holds a token and a password, starts it as a run would,
// and writes every report format from what the run reports of it: the
// process gets the secrets, no report and no error shows them, and the
// reports say values were redacted.
func TestSecretsInNoReport(t *testing.T) {
	const token, password = "abc123tok", "hunter2pw"
	m := stale.Mechanism(stale.DefaultConfig())
	args := filepath.Join(t.TempDir(), "args")
	subject := "exec:/bin/sh -c 'echo \"$@\" > " + args + "' sh --token=" + token + " -name {name} --password " + password
	cast, err := conformance.Subjects(m, map[string]string{"operator": subject})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := conformance.NewProcesses(fakeHost{}, t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := procs.Start("operator/etcd", "operator", "etcd", cast["operator"].Impl.(conformance.Process).Command); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for procs.Running("operator/etcd") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	ran, err := os.ReadFile(args)
	if err != nil || string(ran) != "--token="+token+" -name etcd --password "+password+"\n" {
		t.Fatalf("the process did not get its secrets: %q, %v", ran, err)
	}
	run := reports.Run{Scenario: "stale-operator-death", Mechanism: "stale", Subjects: cast.Names(), Redacted: cast.Redacted(),
		Processes: procs.Close(), Description: cast["operator"].Description,
		Cases: []reports.Case{{Rule: "STALE-001", Section: "000", Statement: "s", Role: "operator", Status: reports.Fail, Message: "m"}}}
	if run.Redacted != 2 {
		t.Errorf("Redacted = %d, want 2", run.Redacted)
	}
	dir := t.TempDir()
	rep := &reports.Report{Tool: "opcert", Runs: []reports.Run{run}}
	if err := reports.WriteAll(dir, rep); err != nil {
		t.Fatal(err)
	}
	var summary strings.Builder
	reports.WriteSummary(&summary, rep)
	outputs := map[string]string{"summary": summary.String(), "headline": run.Headline(), "description": run.Description}
	for _, name := range []string{"junit.xml", "report.json", "report.md", "report.html"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outputs[name] = string(b)
		if name != "report.json" && !strings.Contains(outputs[name], "2 secret-looking values redacted") {
			t.Errorf("%s does not say what it redacted", name)
		}
	}
	_, err = conformance.Subjects(m, map[string]string{"operator": "exec:/bin/op --token=" + token + " 'unclosed"})
	if err == nil {
		t.Fatal("an unclosed quote was accepted")
	}
	outputs["error"] = err.Error()
	for name, out := range outputs {
		if strings.Contains(out, token) || strings.Contains(out, password) {
			t.Errorf("%s shows a secret:\n%s", name, out)
		}
		if !strings.Contains(out, "REDACTED") {
			t.Errorf("%s does not show where a value was hidden:\n%s", name, out)
		}
	}
}
