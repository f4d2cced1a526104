package startupmonitor

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// The fallback annotations of the seed's step 1.
const (
	annotationFor     = "startup-monitor.static-pods.openshift.io/fallback-for-revision"
	annotationReason  = "startup-monitor.static-pods.openshift.io/fallback-reason"
	annotationMessage = "startup-monitor.static-pods.openshift.io/fallback-message"
	revisionKey       = "revision"
)

// Config is what the monitor watches and where.
type Config struct {
	Operand string // kube-apiserver
	// Revision is the revision the monitor watches start up.
	Revision int
	// Timeout is how long the operand may take to become healthy before the monitor falls back.
	Timeout time.Duration
	// Interval is how often the monitor looks.
	Interval time.Duration
	Manifest string // its own manifest
	// ManifestsDir is the kubelet's static pod manifests directory.
	ManifestsDir string
	// ResourcesDir holds the revisions' directories and the last-known-good link.
	ResourcesDir string
	// LockFile is the installer's lock, which the monitor takes while it falls back.
	LockFile string
	// TerminationLog is the operand's termination.log, which says why it exited.
	TerminationLog string
	// HealthURL is the operand's health endpoint (its /healthz and /readyz).
	HealthURL      string
	Namespace, Pod string // the operand's mirror pod
}

// Monitor is one startup-monitor process.
type Monitor struct {
	cfg    Config
	client kubernetes.Interface
	http   *http.Client
	// since is when the operand manifest of its revision was written, as
	// it first found it: a rewrite of the same revision (an installer
	// doing its ask again) starts nothing new.
	since time.Time
	done  bool // step 2 done: waits for the kubelet to stop it
}

// New is a monitor reading the mirror pod through client.
func New(cfg Config, client kubernetes.Interface) *Monitor {
	return &Monitor{cfg: cfg, client: client, http: &http.Client{Timeout: time.Second}}
}

// Run looks every Interval until ctx ends.
func (m *Monitor) Run(ctx context.Context) error {
	t := time.NewTicker(m.cfg.Interval)
	defer t.Stop()
	for {
		if err := m.look(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "startup-monitor:", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (m *Monitor) operandManifest() string {
	return filepath.Join(m.cfg.ManifestsDir, m.cfg.Operand+"-pod.yaml")
}

func (m *Monitor) revisionDir(r int) string {
	return filepath.Join(m.cfg.ResourcesDir, fmt.Sprintf("%s-pod-%d", m.cfg.Operand, r))
}

// look is one look at the operand: it waits while the operand manifest is
// another revision's, does step 2 once it is ready, falls back once the
// timeout has run out since the manifest was written.
func (m *Monitor) look(ctx context.Context) error {
	if m.done {
		return nil
	}
	pod, written, err := readPod(m.operandManifest())
	if err != nil || revisionOf(pod) != m.cfg.Revision {
		m.since = time.Time{}
		return nil // none, or another revision's: do nothing, wait
	}
	if m.since.IsZero() {
		m.since = written
	}
	mirror, err := m.client.CoreV1().Pods(m.cfg.Namespace).Get(ctx, m.cfg.Pod, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		mirror, err = nil, nil
	}
	if err != nil {
		return err
	}
	if ready(mirror, m.cfg.Revision) {
		return m.locked(m.commit)
	}
	if time.Since(m.since) < m.cfg.Timeout {
		return nil
	}
	reason, message := m.diagnose(mirror)
	return m.locked(func() error { return m.fallBack(reason, message) })
}

// locked runs fn holding the installer lock; while someone else holds it,
// it does nothing (the next look tries again).
func (m *Monitor) locked(fn func() error) error {
	f, err := os.OpenFile(m.cfg.LockFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "startup-monitor %d\n", os.Getpid())
	err = errors.Join(err, f.Close())
	if err == nil {
		err = fn()
	}
	return errors.Join(err, os.Remove(m.cfg.LockFile))
}

// commit is step 2: last-known-good to the revision, then its own
// manifest removed.
func (m *Monitor) commit() error {
	link := filepath.Join(m.cfg.ResourcesDir, "last-known-good")
	tmp := filepath.Join(m.cfg.ResourcesDir, ".last-known-good.new")
	_ = os.Remove(tmp)
	if err := os.Symlink(filepath.Base(m.revisionDir(m.cfg.Revision)), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, link); err != nil {
		return err
	}
	if err := os.Remove(m.cfg.Manifest); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	m.done = true
	return nil
}

// fallBack is step 1: the target revision's manifest, annotated, in place
// of the operand's; nothing when there is no target (bootstrap).
func (m *Monitor) fallBack(reason, message string) error {
	target := m.target()
	if target == 0 {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(m.revisionDir(target), m.cfg.Operand+"-pod.yaml"))
	if err != nil {
		return err
	}
	var pod map[string]any
	if err := yaml.Unmarshal(data, &pod); err != nil {
		return err
	}
	meta, _ := pod["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		pod["metadata"] = meta
	}
	ann, _ := meta["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		meta["annotations"] = ann
	}
	ann[annotationFor], ann[annotationReason], ann[annotationMessage] = strconv.Itoa(m.cfg.Revision), reason, message
	out, err := yaml.Marshal(pod)
	if err != nil {
		return err
	}
	tmp := filepath.Join(m.cfg.ManifestsDir, "."+m.cfg.Operand+"-pod.yaml.new")
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, m.operandManifest())
}

// target is the revision to fall back to: last-known-good if it is there
// and another revision, else the newest revision below its own on the
// node, else 0.
func (m *Monitor) target() int {
	if t, err := os.Readlink(filepath.Join(m.cfg.ResourcesDir, "last-known-good")); err == nil {
		if r := m.dirRevision(filepath.Base(t)); r > 0 && r != m.cfg.Revision {
			if _, err := os.Stat(m.revisionDir(r)); err == nil {
				return r
			}
		}
	}
	entries, _ := os.ReadDir(m.cfg.ResourcesDir)
	best := 0
	for _, e := range entries {
		if r := m.dirRevision(e.Name()); r < m.cfg.Revision && r > best && e.IsDir() {
			best = r
		}
	}
	return best
}

func (m *Monitor) dirRevision(name string) int {
	rest, ok := strings.CutPrefix(name, m.cfg.Operand+"-pod-")
	if !ok {
		return 0
	}
	r, _ := strconv.Atoi(rest)
	return r
}

// diagnose walks the seed's readiness steps in order and names the first
// that is red: no start (NeverStartedUp), more than one start with the
// operand not up (CrashLooping), /healthz (Unhealthy), /readyz (NotReady,
// EtcdUnhealthy when an etcd check is among the unfinished), the mirror
// pod's revision or readiness (NotReady).
func (m *Monitor) diagnose(mirror *corev1.Pod) (string, string) {
	rev, op := m.cfg.Revision, m.cfg.Operand
	starts := m.starts()
	healthy, _ := m.probe("/healthz")
	readyz, body := m.probe("/readyz?verbose")
	var unfinished []string
	for l := range strings.SplitSeq(body, "\n") {
		if rest, ok := strings.CutPrefix(l, "[-]"); ok {
			name, _, _ := strings.Cut(rest, " ")
			unfinished = append(unfinished, name)
		}
	}
	switch {
	case starts == 0:
		return "NeverStartedUp", fmt.Sprintf("%s of revision %d never started within %s", op, rev, m.cfg.Timeout)
	case starts > 1 && !(healthy && readyz && ready(mirror, rev)):
		return "CrashLooping", fmt.Sprintf("%s of revision %d started %d times and did not come up within %s", op, rev, starts, m.cfg.Timeout)
	case slices.ContainsFunc(unfinished, func(n string) bool { return n == "etcd" || strings.HasPrefix(n, "etcd-") }):
		return "EtcdUnhealthy", fmt.Sprintf("%s of revision %d cannot reach etcd; unfinished: %s", op, rev, strings.Join(unfinished, ", "))
	case !healthy:
		return "Unhealthy", fmt.Sprintf("%s of revision %d answers /healthz with an error or not at all", op, rev)
	case !readyz:
		return "NotReady", fmt.Sprintf("%s of revision %d is not ready; unfinished: %s", op, rev, strings.Join(unfinished, ", "))
	}
	return "NotReady", fmt.Sprintf("the mirror pod of %s shows no ready revision %d", op, rev)
}

// starts are the start attempts of its revision at the end of
// termination.log, after the last line of another revision.
func (m *Monitor) starts() int {
	f, err := os.Open(m.cfg.TerminationLog)
	if err != nil {
		return 0
	}
	defer f.Close()
	want := "revision " + strconv.Itoa(m.cfg.Revision) + " "
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), want) {
			n++
		} else {
			n = 0
		}
	}
	return n
}

// probe asks the operand's endpoint: green, and the body.
func (m *Monitor) probe(path string) (bool, string) {
	resp, err := m.http.Get(m.cfg.HealthURL + path)
	if err != nil {
		return false, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode == http.StatusOK, string(body)
}

// ready tells whether the mirror pod shows the revision ready.
func ready(pod *corev1.Pod, revision int) bool {
	if pod == nil || pod.Annotations[revisionKey] != strconv.Itoa(revision) {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readPod reads a manifest and when it was last written.
func readPod(path string) (*corev1.Pod, time.Time, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	pod := &corev1.Pod{}
	return pod, fi.ModTime(), yaml.Unmarshal(data, pod)
}

func revisionOf(pod *corev1.Pod) int {
	r, _ := strconv.Atoi(pod.Annotations[revisionKey])
	return r
}
