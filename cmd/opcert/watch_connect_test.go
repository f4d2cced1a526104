package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangingPluginKubeconfig is a kubeconfig whose exec credential plugin
// records its pid and its child's in pids, then waits for ever.
func hangingPluginKubeconfig(t *testing.T, dir string) (kubeconfig, pids string) {
	t.Helper()
	pids = filepath.Join(dir, "pids")
	plugin := write(t, dir, "login.sh", "#!/bin/sh\necho $$ > "+pids+".tmp\nsleep 600 &\necho $! >> "+pids+".tmp\nmv "+pids+".tmp "+pids+"\nwait\n")
	if err := os.Chmod(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	kubeconfig = write(t, dir, "kc", `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: 'https://127.0.0.1:1'}
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: `+plugin+`
      interactiveMode: Never
`)
	return kubeconfig, pids
}

// pluginGone fails the test unless every pid in the file is gone within
// a few seconds.
func pluginGone(t *testing.T, pids string) {
	t.Helper()
	data, err := os.ReadFile(pids)
	if err != nil {
		t.Fatalf("the plugin never ran: %v", err)
	}
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(5 * time.Second)
		for syscall.Kill(pid, 0) == nil {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("process %d of the credential plugin outlived opcert", pid)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// A kubeconfig's exec credential plugin that hangs holds opcert watch no
// longer than --for, nor past Ctrl-C, and does not outlive it: before,
// client-go's plugin call (no timeout, no context) held it for ever.
func TestWatchHangingCredentialPlugin(t *testing.T) {
	t.Run("--for", func(t *testing.T) {
		dir := t.TempDir()
		kc, pids := hangingPluginKubeconfig(t, dir)
		r := opcertWithin(t, 30*time.Second, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--for", "2s", "--out", filepath.Join(dir, "out"))
		if r.code != exitEnv || !strings.Contains(r.stderr, "did not answer within --for 2s (its kubeconfig's credential plugin") {
			t.Errorf("exit %d, want 3 saying the cluster did not answer within --for\n%s", r.code, r.stderr)
		}
		pluginGone(t, pids)
	})
	t.Run("Ctrl-C", func(t *testing.T) {
		dir := t.TempDir()
		kc, pids := hangingPluginKubeconfig(t, dir)
		p := startOpcert(t, nil, "watch", "--kubeconfig", kc, "--mechanism", "stale", "--out", filepath.Join(dir, "out"))
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(pids); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the plugin did not start within 20s")
			}
		}
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		if code := p.wait(t, 10*time.Second); code != 130 {
			t.Errorf("exit %d, want 130\n%s", code, p.stderr.String())
		}
		pluginGone(t, pids)
	})
}

// --judge-every below a second is refused: each judging rereads the
// recording and rewrites the reports (1ns did it 3,592 times in 10 s).
func TestWatchJudgeEveryMinimum(t *testing.T) {
	dir := t.TempDir()
	r := opcertWithin(t, 30*time.Second, nil, "watch", "--kubeconfig", filepath.Join(dir, "none"), "--mechanism", "stale", "--judge-every", "1ns", "--out", filepath.Join(dir, "out"))
	if r.code != exitUsage || !strings.Contains(r.stderr, "--judge-every 1ns: give 1s or more") {
		t.Errorf("exit %d, want 2 saying the minimum\n%s", r.code, r.stderr)
	}
}
