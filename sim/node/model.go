package node

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Kind is how a revision of an operand behaves once the kubelet runs it:
// healthy, or one of the ways the seed (§Proposal, §Test Plan) says a bad
// revision fails.
type Kind string

const (
	// Healthy starts, finishes its post-start hooks after ReadyAfter and is
	// ready from then on.
	Healthy Kind = "healthy"
	// InvalidManifest is a manifest the kubelet cannot read as a pod: it
	// never starts, so nothing is ever written to termination.log.
	InvalidManifest Kind = "invalidManifest"
	// BadConfig exits CrashAfter after each start (a removed flag, an invalid
	// audit policy) and the kubelet restarts it with back-off: a crash loop.
	BadConfig Kind = "badConfig"
	// PortWaitTimeout waits PortWait for its port to be free after each
	// start, gives up and exits, and is restarted with back-off.
	PortWaitTimeout Kind = "portWaitTimeout"
	// ConnectionRefused runs but never listens on its port.
	ConnectionRefused Kind = "connectionRefused"
	// Unhealthy listens but its log check fails, so /healthz is red (as when
	// logging blocks on a full disk).
	Unhealthy Kind = "unhealthy"
	// NotReady is healthy but never ready: the post-start hook Hook never
	// finishes.
	NotReady Kind = "notReady"
	// EtcdHookStuck never reaches etcd: the etcd check stays red on
	// /healthz/etcd, /healthz and /readyz (wrong etcd endpoints, say).
	EtcdHookStuck Kind = "etcdHookStuck"
	// EtcdDownThenBack cannot reach etcd for EtcdDownFor after its start,
	// then can, and becomes ready.
	EtcdDownThenBack Kind = "etcdDownThenBack"
)

// Kinds lists every kind.
var Kinds = []Kind{Healthy, InvalidManifest, BadConfig, PortWaitTimeout,
	ConnectionRefused, Unhealthy, NotReady, EtcdHookStuck, EtcdDownThenBack}

// Model is the behaviour of one revision. Zero durations take the defaults.
type Model struct {
	// Kind is how the revision behaves once run.
	Kind Kind
	// StartDelay is the time from the manifest's appearance to the first
	// start (default 0: the kubelet watches the directory).
	StartDelay time.Duration
	// ReadyAfter is the time from a start to its post-start hooks finishing
	// (default 30s, the seed's "O(30s)" start-up).
	ReadyAfter time.Duration
	// CrashAfter is how long each start of BadConfig lives (default 1s:
	// flags and configuration are read first).
	CrashAfter time.Duration
	// PortWait is how long each start of PortWaitTimeout waits for its port
	// (default 10s: the kube-apiserver pod's wait loop gives up after ten
	// one-second tries).
	PortWait time.Duration
	// EtcdDownFor is how long EtcdDownThenBack cannot reach etcd after its
	// start (default 2m).
	EtcdDownFor time.Duration
	// Hook is the post-start hook NotReady never finishes (default
	// start-apiextensions-controllers).
	Hook string
	// Termination is the termination message each start of a kind whose
	// process exits by itself (BadConfig, PortWaitTimeout) prints before
	// it exits, one line, as kube-apiserver would (default per kind:
	// DefaultTermination). The other kinds have none: InvalidManifest
	// never starts, and the rest run until their revision is replaced.
	Termination string
}

// MaxTermination is the longest termination message a model takes (the
// kubelet keeps at most 4096 bytes of one).
const MaxTermination = 4096

// DefaultTermination is the termination message of each kind whose
// process exits by itself, as kube-apiserver prints it.
var DefaultTermination = map[Kind]string{
	// A removed flag: cobra refuses it before anything starts.
	BadConfig: "Error: unknown flag: --foo",
	// The pod's setup container gives up waiting for the port.
	PortWaitTimeout: "timed out waiting for port :6443 to be released",
}

const (
	defaultReadyAfter  = 30 * time.Second
	defaultCrashAfter  = time.Second
	defaultPortWait    = 10 * time.Second
	defaultEtcdDownFor = 2 * time.Minute
	defaultHook        = "start-apiextensions-controllers"
)

// hooks are the post-start hooks every model registers, a few of
// kube-apiserver's, in its order.
var hooks = []string{
	"generic-apiserver-start-informers",
	"start-apiextensions-informers",
	"start-apiextensions-controllers",
	"crd-informer-synced",
	"rbac/bootstrap-roles",
}

// Validate checks that the kind is known and no duration is negative.
func (m Model) Validate() error {
	if !slices.Contains(Kinds, m.Kind) {
		return fmt.Errorf("unknown operand model %q (one of %v)", m.Kind, Kinds)
	}
	for _, d := range []time.Duration{m.StartDelay, m.ReadyAfter, m.CrashAfter, m.PortWait, m.EtcdDownFor} {
		if d < 0 {
			return fmt.Errorf("operand model %s: negative duration %s", m.Kind, d)
		}
	}
	if m.Termination != "" {
		if _, exits := m.lifetime(); !exits {
			return fmt.Errorf("operand model %s: its process never exits by itself, so it has no termination message", m.Kind)
		}
		if len(m.Termination) > MaxTermination || strings.ContainsAny(m.Termination, "\r\n") {
			return fmt.Errorf("operand model %s: termination message %.40q... is not one line of at most %d bytes", m.Kind, m.Termination, MaxTermination)
		}
	}
	return nil
}

func (m Model) withDefaults() Model {
	set := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	set(&m.ReadyAfter, defaultReadyAfter)
	set(&m.CrashAfter, defaultCrashAfter)
	set(&m.PortWait, defaultPortWait)
	set(&m.EtcdDownFor, defaultEtcdDownFor)
	if m.Hook == "" {
		m.Hook = defaultHook
	}
	if m.Termination == "" {
		m.Termination = DefaultTermination[m.Kind]
	}
	return m
}

// lifetime is how long each start lives; false for one that runs until its
// revision is replaced.
func (m Model) lifetime() (time.Duration, bool) {
	switch m.Kind {
	case BadConfig:
		return m.CrashAfter, true
	case PortWaitTimeout:
		return m.PortWait, true
	}
	return 0, false
}

// listens tells whether a running process accepts connections.
func (m Model) listens() bool {
	switch m.Kind {
	case Healthy, Unhealthy, NotReady, EtcdHookStuck, EtcdDownThenBack:
		return true
	}
	return false
}

// backoff is the kubelet's delay before the n-th restart of a container
// that exited: 10s doubling, capped at 5m. (The kubelet forgets the back-off
// after 10 minutes of running, which no start here lasts.)
func backoff(n int) time.Duration {
	d := 10 * time.Second
	for i := 1; i < n && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// run is where the kubelet's start-and-restart cycle stands at an instant.
type run struct {
	starts  []time.Time // every start so far
	running bool        // the latest start has not exited
	next    time.Time   // the next start or exit; zero if none will come
}

func (m Model) runs(since, now time.Time) run {
	var r run
	if m.Kind == InvalidManifest {
		return r
	}
	life, exits := m.lifetime()
	s := since.Add(m.StartDelay)
	for {
		if now.Before(s) {
			r.next = s
			return r
		}
		r.starts = append(r.starts, s)
		if !exits {
			r.running = true
			return r
		}
		e := s.Add(life)
		if now.Before(e) {
			r.running, r.next = true, e
			return r
		}
		s = e.Add(backoff(len(r.starts)))
	}
}

// checks are the health checks of a process up for d, and the time since
// its start at which they next change (0 if they never will).
func (m Model) checks(d time.Duration) ([]Check, time.Duration) {
	etcd := true
	switch m.Kind {
	case EtcdHookStuck:
		etcd = false
	case EtcdDownThenBack:
		etcd = d >= m.EtcdDownFor
	}
	cs := []Check{
		{Name: "ping", OK: true},
		{Name: "log", OK: m.Kind != Unhealthy, Reason: "logging blocked"},
		{Name: "etcd", OK: etcd, Reason: "etcd client connection not yet established"},
	}
	names := hooks
	if m.Kind == NotReady && !slices.Contains(names, m.Hook) {
		names = append(slices.Clip(names), m.Hook)
	}
	for _, h := range names {
		done := d >= m.ReadyAfter && (m.Kind != NotReady || h != m.Hook)
		cs = append(cs, Check{Name: "poststarthook/" + h, OK: done, Reason: "not finished", ReadyzOnly: true})
	}
	var next time.Duration
	if d < m.ReadyAfter {
		next = m.ReadyAfter
	}
	if m.Kind == EtcdDownThenBack && d < m.EtcdDownFor && (next == 0 || m.EtcdDownFor < next) {
		next = m.EtcdDownFor
	}
	return cs, next
}

// At is the state of the revision at now, its manifest having appeared at
// since (now is not before since). It is a pure function: the scheduler
// asks again at State.Next.
func (m Model) At(since, now time.Time) State {
	m = m.withDefaults()
	r := m.runs(since, now)
	st := State{Starts: len(r.starts), Running: r.running, Next: r.next}
	if m.Kind == InvalidManifest {
		return st
	}
	st.Pod = Pod{Exists: true, Phase: corev1.PodPending}
	if st.Starts > 0 {
		st.Pod.Phase = corev1.PodRunning
		st.Pod.RestartCount = int32(st.Starts - 1)
	}
	if !r.running || !m.listens() {
		return st
	}
	st.Listening = true
	start := r.starts[len(r.starts)-1]
	var next time.Duration
	st.Checks, next = m.checks(now.Sub(start))
	if next > 0 && (st.Next.IsZero() || start.Add(next).Before(st.Next)) {
		st.Next = start.Add(next)
	}
	st.Pod.Ready = !slices.ContainsFunc(st.Checks, func(c Check) bool { return !c.OK })
	return st
}
