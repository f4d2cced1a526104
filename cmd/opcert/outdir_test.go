package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/opcert/opcert/conformance"
)

// smallTimeline copies a short stale timeline into dir.
func smallTimeline(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(benchTimeline(t, 140))
	if err != nil {
		t.Fatal(err)
	}
	return write(t, dir, name, string(data))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s is gone: %v", path, err)
	}
	return string(data)
}

// A report directory lists what opcert wrote in it: opcert replaces it
// again only as it left it, never one holding a file of the user's (notes,
// a capture to analyze), an input of the command, or an older opcert's
// report that lists nothing.
func TestOutHoldsOnlyWhatOpcertWrote(t *testing.T) {
	dir := t.TempDir()
	tl := smallTimeline(t, dir, "stale.jsonl")
	rep := filepath.Join(dir, "rep")
	for i := range 2 { // a new directory, then opcert's own again
		if r := opcert(t, nil, "analyze", "--mechanism", "stale", tl, "--out", rep); r.code != exitPass {
			t.Fatalf("analyze %d: exit %d\n%s", i+1, r.code, r.stderr)
		}
	}
	m, err := readManifest(rep)
	if err != nil || !slices.Contains(m.Files, "report.json") || !slices.Contains(m.Files, "timelines/") || !slices.Contains(m.Files, "timelines/01-stale.jsonl") {
		t.Fatalf("the marker does not list the report's files: %+v, %v", m, err)
	}

	refused := func(what, want string, args ...string) {
		t.Helper()
		r := opcert(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 2 saying %q:\n%s", what, r.code, want, r.stderr)
		}
		if strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("%s: --out was checked only after the API server started", what)
		}
		if _, err := readManifest(rep); err != nil {
			t.Errorf("%s: the report was replaced or lost its list: %v", what, err)
		}
	}

	notes := write(t, rep, "notes.txt", "my notes")
	refused("a note in the report", "holds notes.txt, which opcert did not write", "analyze", "--mechanism", "stale", tl, "--out", rep)
	if readFile(t, notes) != "my notes" {
		t.Errorf("the user's note was changed")
	}
	os.Remove(notes)
	if err := os.Mkdir(filepath.Join(rep, "shots"), 0o755); err != nil {
		t.Fatal(err)
	}
	refused("a directory in the report", "holds shots", "analyze", "--mechanism", "stale", tl, "--out", rep)
	os.Remove(filepath.Join(rep, "shots"))

	capture := smallTimeline(t, rep, "co-capture.json")
	refused("analyze cap/co-capture.json --out cap", "an input of this command", "analyze", "--mechanism", "stale", capture, "--out", rep)
	if _, err := os.Stat(capture); err != nil {
		t.Errorf("analyze deleted its own input: %v", err)
	}
	if err := os.Symlink(rep, filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	refused("an input through a link to --out", "an input of this command", "analyze", "--mechanism", "stale", filepath.Join(dir, "alias", "co-capture.json"), "--out", rep)
	os.Remove(capture)
	refused("a timeline of the report itself", "an input of this command", "analyze", filepath.Join(rep, "timelines", "01-stale.jsonl"), "--out", rep)

	sc := write(t, rep, "mine.yaml", minimal)
	refused("run with a scenario in --out", "an input of this command", "run", sc, "--out", rep)
	os.Remove(sc)
	refused("run with its executable in --out", "an input of this command", "run", "--scenario", "stale-hang", "--subject", "operator=exec:"+filepath.Join(rep, "bin", "manager")+" --name {name}", "--out", rep)
	refused("run with its kubeconfig in --out", "an input of this command", "run", "--kubeconfig", filepath.Join(rep, "kubeconfig"), "--out", rep)
	refused("watch with its kubeconfig in --out", "an input of this command", "watch", "--mechanism", "stale", "--kubeconfig", filepath.Join(rep, "kubeconfig"), "--out", rep)
	refused("fuzz with its executable in --out", "an input of this command", "fuzz", "--mechanism", "stale", "--subject", "operator=exec:"+filepath.Join(rep, "manager"), "--out", rep)

	old := filepath.Join(dir, "old")
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, old, marker, "This directory was written by opcert; opcert run --out replaces it.\n")
	write(t, old, "report.json", "{}")
	r := opcert(t, nil, "analyze", "--mechanism", "stale", tl, "--out", old)
	if r.code != exitUsage || !strings.Contains(r.stderr, "older opcert") || !strings.Contains(r.stderr, "rm -r "+old) {
		t.Errorf("an older opcert's report: exit %d, want 2 saying how to proceed:\n%s", r.code, r.stderr)
	}
	if readFile(t, filepath.Join(old, "report.json")) != "{}" {
		t.Errorf("an older opcert's report was replaced")
	}
}

// resetOutcome gives a test a fresh decision, as a new opcert has.
func resetOutcome(t *testing.T) {
	decided = outcome{}
	t.Cleanup(func() { decided = outcome{} })
}

// signalledCtx is the command's context once sig came.
func signalledCtx(sig syscall.Signal) context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalled{sig})
	return ctx
}

// The decision to replace --out and a signal are taken under one lock,
// and the exit status says which came first.
func TestSignalAndReplaceDecideTogether(t *testing.T) {
	stage := func(t *testing.T) (string, string) {
		out := filepath.Join(t.TempDir(), "report")
		earlierReport(t, out)
		staging, err := stagingDir(out)
		if err != nil {
			t.Fatal(err)
		}
		write(t, staging, "report.json", "{}")
		return staging, out
	}
	t.Run("signal first: --out is left as it was, exit 128+n", func(t *testing.T) {
		resetOutcome(t)
		staging, out := stage(t)
		note := decided.first(syscall.SIGTERM)
		err := commitReport(staging, out, nil)
		if !errors.Is(err, conformance.ErrInterrupted) || !strings.Contains(err.Error(), "left as it was") {
			t.Fatalf("commit after a signal: %v", err)
		}
		checkUntouchedReport(t, out)
		if code := exitCode(signalledCtx(syscall.SIGTERM), err); code != 143 || !strings.Contains(note, "leaving the report directory as it was") {
			t.Errorf("exit %d (%q), want 143 saying --out is left as it was", code, note)
		}
	})
	t.Run("report first: the exit status is the report's", func(t *testing.T) {
		resetOutcome(t)
		staging, out := stage(t)
		if err := commitReport(staging, out, errRulesFailed); err != nil {
			t.Fatal(err)
		}
		if err := onlyWhatOpcertWrote(out); err != nil {
			t.Fatalf("the new report: %v", err)
		}
		note := decided.first(syscall.SIGINT)
		if !strings.Contains(note, "already written to "+out) {
			t.Errorf("a signal after the report says %q", note)
		}
		if code := exitCode(signalledCtx(syscall.SIGINT), errRulesFailed); code != exitFail {
			t.Errorf("exit %d, want 1, the report's", code)
		}
		code, said := decided.atOnce()
		decided.mu.Unlock()
		if code != exitFail || !strings.Contains(said, "written before the first signal") {
			t.Errorf("a second signal: exit %d saying %q, want 1 saying the report was written", code, said)
		}
	})
	t.Run("watch: the signal asks for the report, exit 128+n", func(t *testing.T) {
		resetOutcome(t)
		decided.writesAfterSignal = true
		staging, out := stage(t)
		decided.first(syscall.SIGINT)
		if err := commitReport(staging, out, nil); err != nil {
			t.Fatal(err)
		}
		if code := exitCode(signalledCtx(syscall.SIGINT), errors.New("interrupted")); code != 130 || !strings.Contains(decided.interrupted(), "reports written to "+out) {
			t.Errorf("exit %d saying %q", code, decided.interrupted())
		}
	})
	t.Run("second signal before any report", func(t *testing.T) {
		resetOutcome(t)
		decided.first(syscall.SIGINT)
		code, said := decided.atOnce()
		decided.mu.Unlock()
		if code != 130 || !strings.Contains(said, "left as it was") {
			t.Errorf("exit %d saying %q", code, said)
		}
	})
}
