package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secretToken and secretPassword are what the tests below give opcert and
// look for in everything it prints.
const secretToken, secretPassword = "abc123tok", "s3cretpw"

// TestSubjectSecretsNotPrinted: an executable subject's token is not in
// the plan opcert prints, nor in the error of a --subject it refuses.
func TestSubjectSecretsNotPrinted(t *testing.T) {
	r := opcert(t, nil, "run", "--dry-run", "--scenario", "stale-operator-death",
		"--subject", "stale.operator=exec:/bin/true --token="+secretToken+" -name {name}")
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, secretToken) || !strings.Contains(r.stdout, "--token=REDACTED") {
		t.Errorf("--dry-run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = opcert(t, nil, "run", "--dry-run", "--scenario", "stale-operator-death",
		"--subject", "stale.operator=exec:/bin/op --password "+secretPassword+" 'unclosed")
	if r.code != 2 || strings.Contains(r.stdout+r.stderr, secretPassword) || !strings.Contains(r.stderr, "--password REDACTED") {
		t.Errorf("a refused subject: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestURLCredentialsNotPrinted: a kubeconfig whose server URL holds a user
// and a password, for a cluster that is not there: neither cluster mode
// nor watch prints the password (nor the user) while saying which server
// it could not reach.
func TestURLCredentialsNotPrinted(t *testing.T) {
	kc := write(t, t.TempDir(), "kubeconfig", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://admin:`+secretPassword+`@127.0.0.1:1"}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: t}
`)
	for _, args := range [][]string{
		{"run", "--kubeconfig", kc, "--scenario", "stale-operator-death", "--time-scale", "0.01", "--out", filepath.Join(t.TempDir(), "out")},
		{"watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "1s", "--out", filepath.Join(t.TempDir(), "out")},
	} {
		r := opcert(t, nil, args...)
		if r.code != 3 || strings.Contains(r.stdout+r.stderr, secretPassword) || strings.Contains(r.stdout+r.stderr, "admin") ||
			!strings.Contains(r.stderr, "https://REDACTED@127.0.0.1:1") {
			t.Errorf("opcert %s: exit %d\n%s%s", args[0], r.code, r.stdout, r.stderr)
		}
	}
}

// TestLintQuotesNames: file names holding ESC or a newline, and a path
// holding a terminal title sequence, are printed quoted: each finding
// stays one line and nothing reaches the terminal raw.
func TestLintQuotesNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pay\x1b]0;pwned\x07load")
	if err := os.MkdirAll(filepath.Join(dir, "sub\ndir"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "0000_50_a_01_bad\x1b[2J.yaml", "kind: [unclosed\n")
	write(t, dir, "notes\nfake.md", "x")
	out, err := listCmd(t, "lint", "manifests", dir)
	if err == nil {
		t.Fatalf("a file that is not YAML passed:\n%s", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("raw control characters in:\n%q", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 3 findings and a summary, one line each:\n%s", out)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, `"`+strings.ReplaceAll(dir, "\x1b]0;pwned\x07", `\x1b]0;pwned\a`)) {
			t.Errorf("a line that does not begin with the quoted path: %q", l)
		}
	}
	for _, want := range []string{`bad\x1b[2J.yaml":1: error LINT-001`, `notes\nfake.md": warning LINT-012`, `sub\ndir": warning LINT-012`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}

func TestShown(t *testing.T) {
	got := shown("--subject \"operator=exec:/bin/op --token=" + secretToken + "\": at https://u:" + secretPassword + "@h:1\x1b[2J\nnext line")
	want := "--subject \"operator=exec:/bin/op --token=REDACTED\": at https://REDACTED@h:1\\x1b[2J\nnext line"
	if got != want {
		t.Errorf("shown:\n %q\nwant %q", got, want)
	}
}
