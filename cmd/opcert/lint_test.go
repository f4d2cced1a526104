package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// payloads holds the example payloads.
const payloads = "../../fixtures/payloads"

func TestLintListsLinters(t *testing.T) {
	out, err := listCmd(t, "lint")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "LINTER ") || !strings.Contains(out, "manifests  clusteroperator  001") {
		t.Errorf("opcert lint:\n%s", out)
	}
	out, err = listCmd(t, "lint", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var entries []linterEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) == 0 || entries[0] != (linterEntry{
		Name: "manifests", Mechanism: "clusteroperator", Seed: "001", Description: entries[0].Description}) {
		t.Errorf("opcert lint -o json: %v\n%s", err, out)
	}
}

// People read file:line: severity ID: message [section], sorted, with the
// paths as they gave them, and a summary.
func TestLintHumanOutput(t *testing.T) {
	dir := filepath.Join(payloads, "ignored-files")
	out, err := listCmd(t, "lint", "manifests", dir)
	if err != nil {
		t.Fatalf("warnings alone: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		filepath.Join(dir, "0000_50_example-operator_04_deployment.yaml.orig") + ": warning LINT-012: not swept: extension .orig",
		filepath.Join(dir, "0000_50_example-operator_05_configmap.YAML") + ": warning LINT-012: not swept: extension .YAML",
		filepath.Join(dir, "README.md") + ": warning LINT-012: not swept: extension .md",
		filepath.Join(dir, "extra") + ": warning LINT-012: not swept: a subdirectory",
		dir + ": 0 errors, 4 warnings (3 files swept, 3 manifests, 1 ClusterOperator, 5 entries ignored): passed",
	}
	if len(lines) != len(want) {
		t.Fatalf("output:\n%s", out)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d:\n%s\nwant it to start with\n%s", i+1, lines[i], w)
		}
	}
	if !strings.HasSuffix(lines[0], "[001 §How ClusterVersionOperator handles ClusterOperator in release image]") {
		t.Errorf("no section: %s", lines[0])
	}

	out, err = listCmd(t, "lint", "manifests", filepath.Join(payloads, "bad-yaml"))
	wantLine := filepath.Join(payloads, "bad-yaml", "0000_50_example-operator_04_config.yaml") + ":12: error LINT-001: not valid YAML"
	if !errors.Is(err, errRulesFailed) || !strings.HasPrefix(out, wantLine) || !strings.Contains(out, "1 error, 0 warnings") {
		t.Errorf("bad-yaml: %v\n%s", err, out)
	}
}

func TestLintJSON(t *testing.T) {
	out, err := listCmd(t, "lint", "manifests", filepath.Join(payloads, "ordering-trap"), "-o", "json")
	if !errors.Is(err, errRulesFailed) {
		t.Errorf("an error finding: %v, want the failure exit", err)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in:\n%s", err, out)
	}
	for k, v := range map[string]any{"linter": "manifests", "mechanism": "clusteroperator", "seed": "001",
		"errors": 1.0, "warnings": 0.0, "strict": false, "passed": false,
		"checked": "3 files swept, 3 manifests, 1 ClusterOperator"} {
		if rep[k] != v {
			t.Errorf("%s = %v, want %v", k, rep[k], v)
		}
	}
	fs, _ := rep["findings"].([]any)
	if len(fs) != 1 {
		t.Fatalf("findings %v", rep["findings"])
	}
	f := fs[0].(map[string]any)
	for k, v := range map[string]any{"id": "LINT-007", "severity": "error", "file": "0000_50_example-operator_07_clusteroperator.yaml",
		"line": 1.0, "section": "001 §How ClusterVersionOperator handles ClusterOperator in release image"} {
		if f[k] != v {
			t.Errorf("finding %s = %v, want %v", k, f[k], v)
		}
	}

	out, err = listCmd(t, "lint", "manifests", filepath.Join(payloads, "good"), "-o", "json")
	if err != nil || !strings.Contains(out, `"findings": []`) || !strings.Contains(out, `"passed": true`) {
		t.Errorf("good: %v\n%s", err, out)
	}
}

// Exit codes through main's mapping: 0 without errors (warnings pass
// unless --strict), 1 with, 2 for what the user must fix in the command.
func TestLintExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		says string // on stderr
	}{
		{[]string{"lint", "manifests", filepath.Join(payloads, "good")}, 0, ""},
		{[]string{"lint", "manifests", filepath.Join(payloads, "good"), "--strict"}, 0, ""},
		{[]string{"lint", "manifests", filepath.Join(payloads, "status-conditions")}, 0, ""},
		{[]string{"lint", "manifests", filepath.Join(payloads, "status-conditions"), "--strict"}, 1, ""},
		{[]string{"lint", "manifests", filepath.Join(payloads, "ordering-trap")}, 1, ""},
		{[]string{"lint", "manifests"}, 2, "opcert lint manifests takes one path, got 0: run opcert lint manifests PATH (its --help says what it reads)"},
		{[]string{"lint", "manifests", "a", "b"}, 2, "takes one path, got 2"},
		{[]string{"lint", "manifests", filepath.Join(payloads, "nope")}, 2, "nope does not exist: give the directory that holds the manifests"},
		{[]string{"lint", "manifests", filepath.Join(payloads, "good", "image-references")}, 2, "is not a directory"},
		{[]string{"lint", "bundle", "x"}, 2, `no linter "bundle": the linters are manifests`},
		{[]string{"lint", "manifests", filepath.Join(payloads, "good"), "-o", "xml"}, 2, `--output "xml" is not a format`},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			_, err := listCmd(t, tc.args...)
			if code := exitCode(context.Background(), err); code != tc.code {
				t.Errorf("exit %d (%v), want %d", code, err, tc.code)
			}
			if tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)) {
				t.Errorf("error %v, want it to say %q", err, tc.says)
			}
		})
	}
}

// The help says what is checked.
func TestLintHelp(t *testing.T) {
	out, err := listCmd(t, "lint", "manifests", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"LINT-001", "LINT-007", "opcert.io/reported-by", "Exit codes", "--strict", "001 §Version"} {
		if !strings.Contains(out, w) {
			t.Errorf("help does not say %q", w)
		}
	}
}
