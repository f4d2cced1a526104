package node

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

// epoch is where virtual time starts in every run (sim/timeline.Epoch).
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

const kas = "kube-apiserver"

// recorder collects a node's events.
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) sink(_ context.Context, e Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// lines renders the events as "+<since epoch> <actor> <op> <path> [-> target] [(detail)]".
func (r *recorder) lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		l := fmt.Sprintf("+%s %s %s %s", e.Time.Sub(epoch), e.Actor, e.Op, e.Path)
		if e.Target != "" {
			l += " -> " + e.Target
		}
		if e.Detail != "" {
			l += " (" + e.Detail + ")"
		}
		out = append(out, l)
	}
	return out
}

func newNode(t *testing.T) (*Node, *testingclock.FakeClock, *recorder) {
	t.Helper()
	clk := testingclock.NewFakeClock(epoch)
	rec := &recorder{}
	n, err := New("", clk, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, clk, rec
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func equalLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\ngot\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestNewLaysOutTheSeedDirectories(t *testing.T) {
	n, _, rec := newNode(t)
	for _, d := range []string{ManifestsDir, StaticPodsDir, LockDir, LogDir} {
		if fi, err := os.Stat(filepath.Join(n.Dir(), d)); err != nil || !fi.IsDir() {
			t.Errorf("%s: not a directory (%v)", d, err)
		}
	}
	equalLines(t, "events", rec.lines(), nil)
}

// Seed 003 §Proposal: installer, startup-monitor, operand and pruner all
// change the node; each change is one event, stamped with its actor and
// the virtual time.
func TestEveryChangeIsOneEvent(t *testing.T) {
	n, clk, rec := newNode(t)
	installer, monitor, operand, pruner := n.As("installer"), n.As("startup-monitor"), n.As(kas), n.As("pruner")
	staging := "/etc/kubernetes/kube-apiserver-pod.yaml.new"
	steps := []func() error{
		func() error { return installer.WriteFile(RevisionManifestPath(kas, 2), []byte("rev2")) },
		func() error { return installer.WriteFile(RevisionManifestPath(kas, 3), []byte("rev3")) },
		func() error { return installer.WriteFile(ConfigMapPath(kas, 3, "config", "config.yaml"), []byte("{}")) },
		func() error { return installer.WriteFile(SecretPath(kas, 3, "serving-cert", "tls.key"), []byte("key")) },
		func() error { return installer.WriteFile(staging, []byte("rev3")) },
		func() error { return installer.Rename(staging, ManifestPath(kas)) },
		func() error { return installer.WriteFile(MonitorManifestPath(kas), []byte("monitor")) },
		func() error { return monitor.Lock(LockPath(kas)) },
		func() error { return monitor.Symlink(RevisionDir(kas, 3), LastKnownGood) },
		func() error { return monitor.Unlock(LockPath(kas)) },
		func() error { return operand.AppendFile(TerminationLogPath(kas), []byte("start 1\n")) },
		func() error { return pruner.Remove(RevisionDir(kas, 2)) },
		func() error { return monitor.Remove(MonitorManifestPath(kas)) },
	}
	for i, step := range steps {
		clk.SetTime(epoch.Add(time.Duration(i) * time.Second))
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	equalLines(t, "events", rec.lines(), []string{
		"+0s installer write /etc/kubernetes/static-pods/kube-apiserver-pod-2/kube-apiserver-pod.yaml (4 bytes)",
		"+1s installer write /etc/kubernetes/static-pods/kube-apiserver-pod-3/kube-apiserver-pod.yaml (4 bytes)",
		"+2s installer write /etc/kubernetes/static-pods/kube-apiserver-pod-3/configmaps/config/config.yaml (2 bytes)",
		"+3s installer write /etc/kubernetes/static-pods/kube-apiserver-pod-3/secrets/serving-cert/tls.key (3 bytes)",
		"+4s installer write /etc/kubernetes/kube-apiserver-pod.yaml.new (4 bytes)",
		"+5s installer rename /etc/kubernetes/kube-apiserver-pod.yaml.new -> /etc/kubernetes/manifests/kube-apiserver-pod.yaml",
		"+6s installer write /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml (7 bytes)",
		"+7s startup-monitor lock /var/lock/kube-apiserver-installer.lock",
		"+8s startup-monitor symlink /etc/kubernetes/static-pods/last-known-good -> /etc/kubernetes/static-pods/kube-apiserver-pod-3",
		"+9s startup-monitor unlock /var/lock/kube-apiserver-installer.lock",
		"+10s kube-apiserver write /var/log/kube-apiserver/termination.log (append 8 bytes)",
		"+11s pruner remove /etc/kubernetes/static-pods/kube-apiserver-pod-2 (directory)",
		"+12s startup-monitor remove /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml",
	})

	h := n.As("reader")
	names, err := h.ReadDir(StaticPodsDir)
	must(t, err)
	equalLines(t, "static-pods", names, []string{"kube-apiserver-pod-3", "last-known-good"})
	names, err = h.ReadDir(ManifestsDir)
	must(t, err)
	equalLines(t, "manifests", names, []string{"kube-apiserver-pod.yaml"})
	got, err := h.ReadFile(LastKnownGood + "/kube-apiserver-pod.yaml")
	must(t, err)
	if string(got) != "rev3" {
		t.Errorf("manifest through last-known-good = %q, want rev3", got)
	}
	if target, err := h.Readlink(LastKnownGood); err != nil || target != RevisionDir(kas, 3) {
		t.Errorf("Readlink = %q, %v", target, err)
	}
	// On disk the link is relative, so it resolves inside the node's
	// directory for an outside process too.
	if raw, err := os.Readlink(filepath.Join(n.Dir(), LastKnownGood)); err != nil || raw != "kube-apiserver-pod-3" {
		t.Errorf("link on disk = %q, %v", raw, err)
	}
	if _, err := h.ReadFile(staging); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("renamed file still there: %v", err)
	}
}

// A change that fails changes nothing and reports nothing; none can reach
// outside the node.
func TestRefusedChangesHaveNoEvent(t *testing.T) {
	n, _, rec := newNode(t)
	h, other := n.As("installer"), n.As("startup-monitor")
	must(t, h.Lock(LockPath(kas)))
	before := len(rec.lines())
	for _, tc := range []struct {
		name string
		op   func() error
		want error // nil: any error
	}{
		{"relative path", func() error { return h.WriteFile("etc/kubernetes/x", nil) }, nil},
		{"empty path", func() error { return h.WriteFile("", nil) }, nil},
		{"dot-dot above the root", func() error { return h.WriteFile("/../x", nil) }, ErrOutside},
		{"dot-dot above the root, deeper", func() error { return h.WriteFile("/etc/kubernetes/../../../x", nil) }, ErrOutside},
		{"append above the root", func() error { return h.AppendFile("/var/../../log", nil) }, ErrOutside},
		{"the root itself", func() error { return h.Remove("/") }, nil},
		{"the root by dot-dot", func() error { return h.Remove("/etc/..") }, nil},
		{"rename onto the root", func() error { return h.Rename(ManifestsDir, "/") }, nil},
		{"rename out of the root", func() error { return h.Rename(ManifestsDir, "/../manifests") }, ErrOutside},
		{"rename of nothing", func() error { return h.Rename("/nothing", "/something") }, fs.ErrNotExist},
		{"remove of nothing", func() error { return h.Remove("/nothing") }, fs.ErrNotExist},
		{"symlink target above the root", func() error { return h.Symlink("../../../../../tmp", LastKnownGood) }, ErrOutside},
		{"symlink target above the root, absolute", func() error { return h.Symlink("/../tmp", LastKnownGood) }, ErrOutside},
		{"symlink over a directory", func() error { return h.Symlink(RevisionDir(kas, 1), ManifestsDir) }, nil},
		{"lock held", func() error { return other.Lock(LockPath(kas)) }, ErrLocked},
		{"unlock by another", func() error { return other.Unlock(LockPath(kas)) }, ErrNotHeld},
		{"unlock of a free lock", func() error { return h.Unlock(LockPath("etcd")) }, ErrNotHeld},
		{"read above the root", func() error { _, err := h.ReadFile("/../etc/passwd"); return err }, ErrOutside},
	} {
		err := tc.op()
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: err = %v, want %v", tc.name, err, tc.want)
		}
		if strings.Contains(fmt.Sprint(err), n.Dir()) {
			t.Errorf("%s: error names the host directory: %v", tc.name, err)
		}
	}
	equalLines(t, "events after refused changes", rec.lines()[before:], nil)
}

// A link planted by an outside process cannot take the node's actors out of
// its root, relative or absolute.
func TestForeignLinksDoNotLeaveTheRoot(t *testing.T) {
	n, _, rec := newNode(t)
	h := n.As("startup-monitor")
	outside := t.TempDir()
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("host"), 0o600))
	rel, err := filepath.Rel(filepath.Join(n.Dir(), StaticPodsDir), outside)
	must(t, err)
	for name, target := range map[string]string{"absolute": outside, "relative": rel} {
		link := StaticPodsDir + "/" + name
		must(t, os.Symlink(target, filepath.Join(n.Dir(), link)))
		if data, err := h.ReadFile(link + "/secret"); err == nil {
			t.Errorf("%s link: read %q from outside the node", name, data)
		}
		if err := h.WriteFile(link+"/planted", []byte("x")); err == nil {
			t.Errorf("%s link: wrote outside the node", name)
		}
		if _, err := os.Stat(filepath.Join(outside, "planted")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s link: a file appeared outside the node (%v)", name, err)
		}
	}
	if _, err := h.Readlink(StaticPodsDir + "/absolute"); !errors.Is(err, ErrOutside) {
		t.Errorf("Readlink of a host-absolute link: %v, want ErrOutside", err)
	}
	equalLines(t, "events", rec.lines(), nil)
}

// Symlink targets are node paths, relative to the link's directory or
// absolute; absolute ones stay inside the node.
func TestSymlinkTargets(t *testing.T) {
	n, _, _ := newNode(t)
	h := n.As("startup-monitor")
	must(t, h.WriteFile(RevisionManifestPath(kas, 4), []byte("rev4")))
	for _, target := range []string{
		"kube-apiserver-pod-4",
		"./kube-apiserver-pod-4/",
		"../static-pods/kube-apiserver-pod-4",
		RevisionDir(kas, 4),
	} {
		must(t, h.Symlink(target, LastKnownGood))
		got, err := h.Readlink(LastKnownGood)
		if err != nil || got != RevisionDir(kas, 4) {
			t.Errorf("Symlink(%q): Readlink = %q, %v", target, got, err)
		}
		if data, err := h.ReadFile(LastKnownGood + "/kube-apiserver-pod.yaml"); err != nil || string(data) != "rev4" {
			t.Errorf("Symlink(%q): read through the link %q, %v", target, data, err)
		}
	}
	// A link to a path that does not exist yet is allowed, as with ln -s.
	must(t, h.Symlink(RevisionDir(kas, 9), LastKnownGood))
	if _, err := h.ReadFile(LastKnownGood + "/kube-apiserver-pod.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("dangling link: %v", err)
	}
}

// Seed 003 §Proposal: a reader of last-known-good or of the manifest (the
// kubelet, a startup-monitor process) sees the old version or the new one,
// never none and never half of one.
func TestReplacementsAreAtomic(t *testing.T) {
	n, _, _ := newNode(t)
	h := n.As("startup-monitor")
	versions := [][]byte{bytes.Repeat([]byte("1"), 64<<10), bytes.Repeat([]byte("2"), 64<<10)}
	for rev, v := range versions {
		must(t, h.WriteFile(RevisionManifestPath(kas, rev+1), v))
	}
	must(t, h.WriteFile(ManifestPath(kas), versions[0]))
	must(t, h.Symlink(RevisionDir(kas, 1), LastKnownGood))

	for name, replace := range map[string]func(i int) error{
		"symlink": func(i int) error { return h.Symlink(RevisionDir(kas, i%2+1), LastKnownGood) },
		"write":   func(i int) error { return h.WriteFile(ManifestPath(kas), versions[i%2]) },
	} {
		t.Run(name, func(t *testing.T) {
			read := filepath.Join(n.Dir(), LastKnownGood, kas+"-pod.yaml")
			if name == "write" {
				read = filepath.Join(n.Dir(), ManifestPath(kas))
			}
			var stop atomic.Bool
			var reads atomic.Int64
			bad := make(chan string, 1)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for !stop.Load() {
					data, err := os.ReadFile(read)
					reads.Add(1)
					if err != nil || !(bytes.Equal(data, versions[0]) || bytes.Equal(data, versions[1])) {
						bad <- fmt.Sprintf("read %d bytes, %v", len(data), err)
						return
					}
				}
			}()
			for i := 0; i < 200; i++ {
				must(t, replace(i))
			}
			stop.Store(true)
			<-done
			select {
			case msg := <-bad:
				t.Fatalf("a reader saw a replacement half done: %s", msg)
			default:
			}
			if reads.Load() == 0 {
				t.Fatal("the reader never read")
			}
		})
	}
	// No temporary file is left behind.
	names, err := h.ReadDir(StaticPodsDir)
	must(t, err)
	equalLines(t, "static-pods", names, []string{"kube-apiserver-pod-1", "kube-apiserver-pod-2", "last-known-good"})
}

// Seed 003 §Coordination of Installer and Startup-Monitor: the lock file
// is held while present, names its holder, does not nest, and is advisory.
func TestLock(t *testing.T) {
	n, clk, rec := newNode(t)
	monitor, installer := n.As("startup-monitor"), n.As("installer")
	lock := LockPath(kas)

	must(t, monitor.Lock(lock))
	if data, err := installer.ReadFile(lock); err != nil || string(data) != "startup-monitor\n" {
		t.Errorf("lock file = %q, %v", data, err)
	}
	err := installer.Lock(lock)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), `"startup-monitor"`) {
		t.Errorf("second Lock: %v, want ErrLocked naming the holder", err)
	}
	if err := monitor.Lock(lock); !errors.Is(err, ErrLocked) {
		t.Errorf("Lock by the holder: %v, want ErrLocked (no nesting)", err)
	}
	if err := installer.Unlock(lock); !errors.Is(err, ErrNotHeld) {
		t.Errorf("Unlock by another: %v, want ErrNotHeld", err)
	}

	// An installer that ignores the lock writes anyway: the race the seed
	// guards against, visible on the events.
	clk.Step(time.Second)
	must(t, installer.WriteFile(ManifestPath(kas), []byte("rev4")))
	clk.Step(time.Second)
	must(t, monitor.WriteFile(ManifestPath(kas), []byte("rev3 fallback")))
	clk.Step(time.Second)
	must(t, monitor.Unlock(lock))
	must(t, installer.Lock(lock))
	equalLines(t, "events", rec.lines(), []string{
		"+0s startup-monitor lock /var/lock/kube-apiserver-installer.lock",
		"+1s installer write /etc/kubernetes/manifests/kube-apiserver-pod.yaml (4 bytes)",
		"+2s startup-monitor write /etc/kubernetes/manifests/kube-apiserver-pod.yaml (13 bytes)",
		"+3s startup-monitor unlock /var/lock/kube-apiserver-installer.lock",
		"+3s installer lock /var/lock/kube-apiserver-installer.lock",
	})
	if got := writesUnderOthersLock(rec.events); !slices.Equal(got, []string{"installer"}) {
		t.Errorf("actors writing under another's lock = %v, want [installer]", got)
	}

	// Breaking a lock is a plain Remove, and shows as one.
	must(t, monitor.Remove(lock))
	must(t, monitor.Lock(lock))
}

// writesUnderOthersLock is how a rule finds the race from events alone: a
// write by someone while another actor holds a lock.
func writesUnderOthersLock(events []Event) []string {
	holders := map[string]string{}
	var racers []string
	for _, e := range events {
		switch e.Op {
		case OpLock:
			holders[e.Path] = e.Actor
		case OpUnlock:
			delete(holders, e.Path)
		default:
			for _, h := range holders {
				if h != e.Actor {
					racers = append(racers, e.Actor)
				}
			}
		}
	}
	return racers
}

func TestCloseRemovesTheNode(t *testing.T) {
	n, err := New("", testingclock.NewFakeClock(epoch), nil)
	must(t, err)
	must(t, n.As("installer").WriteFile(ManifestPath(kas), []byte("x")))
	must(t, n.Close())
	if _, err := os.Stat(n.Dir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("node directory still there after Close: %v", err)
	}
	if err := n.As("installer").WriteFile(ManifestPath(kas), []byte("x")); err == nil {
		t.Error("a closed node accepted a write")
	}
}

// A writer may say what a file is instead of its size, and each event
// reaches the sink with the context of the handle that made it.
func TestNotedWritesAndContexts(t *testing.T) {
	clk := testingclock.NewFakeClock(epoch)
	type key struct{}
	var got []string
	n, err := New("", clk, func(ctx context.Context, e Event) {
		v, _ := ctx.Value(key{}).(string)
		got = append(got, fmt.Sprintf("%s %s %s (%s) ctx=%q", e.Actor, e.Op, e.Path, e.Detail, v))
	})
	must(t, err)
	t.Cleanup(func() { n.Close() })
	h := n.As("installer")
	must(t, h.WithContext(context.WithValue(context.Background(), key{}, "reconcile 1")).WriteFileNoted(ManifestPath(kas), []byte("pod"), "revision=3"))
	must(t, h.WriteFile(MonitorManifestPath(kas), []byte("monitor")))
	equalLines(t, "events", got, []string{
		`installer write /etc/kubernetes/manifests/kube-apiserver-pod.yaml (revision=3) ctx="reconcile 1"`,
		`installer write /etc/kubernetes/manifests/kube-apiserver-startup-monitor-pod.yaml (7 bytes) ctx=""`,
	})
	data, err := h.ReadFile(ManifestPath(kas))
	must(t, err)
	if string(data) != "pod" {
		t.Errorf("noted write left %q", data)
	}
}
