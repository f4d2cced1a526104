package node

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A process writes the node's directory with plain file calls: once
// tracked, the node files each of its changes as the outsider's, in the
// order it made them (a link, then a removal, a microsecond apart), the
// lock it took as a lock, its dot files not at all, and a handle's own
// changes never as the outsider's.
func TestOutsideChangesAreFiledInOrder(t *testing.T) {
	n, _, rec := newNode(t)
	h := n.As("installer")
	must(t, h.WriteFileNoted(MonitorManifestPath(kas), []byte("monitor\n"), "revision=2"))
	must(t, h.WriteFile(RevisionManifestPath(kas, 2), []byte("pod 2\n")))
	must(t, n.Track("monitor", func(p string, data []byte) string {
		if strings.HasSuffix(p, ".yaml") {
			return "manifest " + strings.TrimSpace(string(data))
		}
		return ""
	}))
	host := func(p string) string { return filepath.Join(n.Dir(), filepath.FromSlash(p[1:])) }
	must(t, os.WriteFile(host(LockPath(kas)), []byte("me\n"), 0o644))
	must(t, os.WriteFile(host("/etc/kubernetes/manifests/.tmp.yaml"), []byte("half"), 0o644))
	must(t, os.Symlink("kube-apiserver-pod-2", host(LastKnownGood)))
	must(t, os.Remove(host(MonitorManifestPath(kas))))
	must(t, os.Remove(host(LockPath(kas))))
	if differs, err := n.Differs(); err != nil || !differs {
		t.Fatalf("Differs: %t, %v; want true", differs, err)
	}
	// A handle's read files what came from outside first.
	if _, err := h.ReadFile(RevisionManifestPath(kas, 2)); err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(host(ManifestPath(kas)), []byte("fallback\n"), 0o644))
	got, err := n.Outside(context.Background())
	must(t, err)
	if got != 1 {
		t.Errorf("Outside reported %d changes, want 1", got)
	}
	if differs, err := n.Differs(); err != nil || differs {
		t.Errorf("Differs after Outside: %t, %v; want false", differs, err)
	}
	equalLines(t, "events", rec.lines(), []string{
		"+0s installer write /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml (revision=2)",
		"+0s installer write /etc/kubernetes/static-pods/kube-apiserver-pod-2/kube-apiserver-pod.yaml (6 bytes)",
		"+0s monitor lock /var/lock/kube-apiserver-installer.lock",
		"+0s monitor symlink /etc/kubernetes/static-pods/last-known-good -> /etc/kubernetes/static-pods/kube-apiserver-pod-2",
		"+0s monitor remove /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml",
		"+0s monitor unlock /var/lock/kube-apiserver-installer.lock",
		"+0s monitor write /etc/kubernetes/manifests/kube-apiserver-pod.yaml (manifest fallback)",
	})
}

// A lock the outsider still holds when it is gone is released, as the
// kernel releases a dead process's lock, and filed as its unlock.
func TestReleaseOutsideFreesTheLock(t *testing.T) {
	n, clk, rec := newNode(t)
	must(t, n.Track("monitor", nil))
	lock := filepath.Join(n.Dir(), filepath.FromSlash(LockPath(kas)[1:]))
	must(t, os.WriteFile(lock, []byte("me\n"), 0o644))
	clk.Step(time.Second)
	must(t, n.ReleaseOutside(context.Background()))
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there: %v", err)
	}
	must(t, n.As("installer").Lock(LockPath(kas)))
	equalLines(t, "events", rec.lines(), []string{
		"+1s monitor lock /var/lock/kube-apiserver-installer.lock",
		"+1s monitor unlock /var/lock/kube-apiserver-installer.lock",
		"+1s installer lock /var/lock/kube-apiserver-installer.lock",
	})
}

// At a time scale an operand plays its model's durations multiplied:
// at 0.01 a crash loop's restarts 10s and 21s apart come 100ms and 210ms
// apart, and the instant it asks to be synced again is one at which the
// model has moved.
func TestOperandWithScale(t *testing.T) {
	n, clk, _ := newNode(t)
	op, err := NewOperand(kas, 4, Model{Kind: BadConfig}, epoch)
	must(t, err)
	op = op.WithScale(0.01)
	var starts []string
	for range 3 {
		next, err := op.Sync(n.As(kas))
		must(t, err)
		clk.SetTime(next)
	}
	log, err := n.As(kas).ReadFile(TerminationLogPath(kas))
	must(t, err)
	for _, l := range strings.Split(strings.TrimSuffix(string(log), "\n"), "\n") {
		starts = append(starts, strings.Fields(l)[0])
	}
	equalLines(t, "starts", starts, []string{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00.11Z"})
	if st := op.State(clk.Now()); st.Starts != 2 {
		t.Errorf("at %s: %d starts, want 2", clk.Now().Sub(epoch), st.Starts)
	}
}
