package staticpod

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/node"
	"github.com/opcert/opcert/sim/timeline"
)

// host is one simulated node: its file system, whose every change reaches
// the timeline as a File event and wakes the actors that watch it, the
// operand the kubelet runs, its endpoints on a loopback port, and what the
// node's processes share.
type host struct {
	c    *cluster
	name string
	fs   *node.Node
	srv  *node.Server

	mu      sync.Mutex // guards running (the endpoint server reads it)
	running *operandRun

	// The installer's work: the operator's latest ask (want, numbered
	// wantSeq) and the last ask it completed. Durable, as the operator's
	// installer pods are: a restarted installer carries on.
	want, wantSeq, doneSeq int

	// preRun is the manifest laid out at time 0, whose operand has run
	// for preRunFor when the run starts.
	preRun []byte
}

// preRunFor is how long the installed revision has run at time 0: long
// enough to be up, however its model starts.
const preRunFor = time.Hour

// operandRun is the operand the kubelet runs from the manifest it read.
type operandRun struct {
	manifest []byte
	revision int
	op       *node.Operand
}

func newHost(c *cluster, name string) (*host, error) {
	h := &host{c: c, name: name}
	fsys, err := node.New(c.st.Dir, c.st.Sched.Clock(), h.sink)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	h.fs = fsys
	if h.srv, err = node.Serve(c.st.Sched.Clock(), h.state); err != nil {
		fsys.Close()
		return nil, fmt.Errorf("node %s: serving the operand's endpoints: %w", name, err)
	}
	return h, nil
}

func (h *host) close() error {
	return errors.Join(h.srv.Close(), h.fs.Close())
}

// as is the node as actor sees it, its changes filed with ctx's work.
func (h *host) as(ctx context.Context, actor string) *node.Handle {
	return h.fs.As(actor).WithContext(ctx)
}

// sink files a node change on the timeline (the File events of the
// contract) and wakes the actors that watch that part of the node, other
// than the one that made the change.
func (h *host) sink(ctx context.Context, e node.Event) {
	sched := h.c.st.Sched
	sched.Record(ctx, timeline.Event{Actor: e.Actor, Role: roleOf(e.Actor), Verb: e.Op,
		Object: timeline.ObjectRef{Kind: timeline.KindFile, Namespace: h.name, Name: e.Path},
		Target: e.Target, Detail: e.Detail})
	var wake []string
	switch p := e.Path; {
	case within(p, node.ManifestsDir):
		wake = []string{RoleKubelet, RoleStartupMonitor}
	case p == node.LockPath(operandName):
		wake = []string{RoleInstaller, RoleStartupMonitor}
	case p == node.TerminationLogPath(operandName):
		wake = []string{RoleStartupMonitor}
	case within(p, node.StaticPodsDir):
		wake = []string{RolePruner}
	}
	for _, role := range wake {
		if actor := nodeActor(role, h.name); actor != e.Actor {
			sched.Enqueue(actor, request(role, h.name), sched.Now())
		}
	}
}

func within(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// state is the operand's state at now as its endpoints and the kubelet
// report it: its model's, with etcd taken away while the scenario says so.
func (h *host) state(now time.Time) node.State {
	h.mu.Lock()
	run := h.running
	h.mu.Unlock()
	if run == nil {
		return node.State{}
	}
	st := run.op.State(now)
	if h.c.etcdDown.Load() && st.Listening {
		st.Checks = slices.Clone(st.Checks)
		for i := range st.Checks {
			if st.Checks[i].Name == "etcd" {
				st.Checks[i].OK, st.Checks[i].Reason = false, "etcd cluster is unavailable or misconfigured"
			}
		}
		st.Pod.Ready = false
	}
	return st
}

func (h *host) current() *operandRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.running
}

func (h *host) setRunning(r *operandRun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.running = r
}

// layout puts at time 0 what is on the node before the run: the resource
// directories of the declared revisions up to the installed one, its
// manifest, a leftover startup-monitor manifest. They are the scenario's
// doing, filed as such. (The last-known-good link comes once the kubelet
// has shown the installed operand ready: see build.)
func (h *host) layout(ctx context.Context) error {
	w := h.c.spec
	fsys := h.as(ctx, timeline.RoleScenario)
	for _, r := range w.initial() {
		if err := h.writeResources(fsys, r); err != nil {
			return err
		}
	}
	if w.Installed > 0 {
		if err := h.writeManifest(fsys, contract.Operand, w.Installed, nil); err != nil {
			return err
		}
		h.preRun, _ = fsys.ReadFile(node.ManifestPath(operandName))
	}
	if l := w.LeftoverMonitor; l > 0 {
		if err := h.writeManifest(fsys, contract.StartupMonitor, l, nil); err != nil {
			return err
		}
	}
	return nil
}

// start starts the node's processes other than the startup-monitor, which
// the kubelet starts from its manifest.
func (h *host) start(ctx context.Context) error {
	sched := h.c.st.Sched
	k := &kubelet{h: h, actor: nodeActor(RoleKubelet, h.name), client: sched.Client(h.c.st.API, nodeActor(RoleKubelet, h.name), RoleKubelet)}
	if err := h.startActor(ctx, RoleKubelet, k); err != nil {
		return err
	}
	if err := h.startActor(ctx, RoleOperand, &operand{h: h, actor: nodeActor(RoleOperand, h.name), last: map[string]string{}}); err != nil {
		return err
	}
	if err := h.startInstaller(ctx); err != nil {
		return err
	}
	return h.startPruner(ctx)
}

func (h *host) startInstaller(ctx context.Context) error {
	if p := h.c.procsOf(RoleInstaller); p != nil {
		return h.startActor(ctx, RoleInstaller, p.shots[h.name]) // a team's command per ask
	}
	actor := nodeActor(RoleInstaller, h.name)
	core, err := h.c.installer.instance()
	if err != nil {
		return err
	}
	return h.startActor(ctx, RoleInstaller, &installer{h: h, actor: actor, core: core,
		exec: executor{h: h, actor: actor, write: h.c.installerWrite}})
}

func (h *host) startPruner(ctx context.Context) error {
	if p := h.c.procsOf(RolePruner); p != nil {
		return h.startActor(ctx, RolePruner, p.shots[h.name]) // a team's command per change
	}
	core, err := h.c.pruner.instance()
	if err != nil {
		return err
	}
	return h.startActor(ctx, RolePruner, &pruner{h: h, actor: nodeActor(RolePruner, h.name), core: core})
}

func (h *host) startActor(ctx context.Context, role string, r reconcile.Reconciler, watches ...sim.Watch) error {
	return h.c.st.Sched.Start(ctx, sim.Actor{Name: nodeActor(role, h.name), Role: role, Reconciler: r,
		Watches: watches, Initial: []reconcile.Request{request(role, h.name)}, ReadsOthers: true})
}

// kill stops a node process, if it runs. A lock file it holds is released
// with it, as the kernel releases a dead process's flock (the seed's lock
// is one; a lock file left behind would stop the node for good).
func (h *host) kill(ctx context.Context, role string) error {
	if p := h.c.procsOf(role); p != nil && role == RoleStartupMonitor {
		return p.kill(ctx, h)
	}
	actor := nodeActor(role, h.name)
	sched := h.c.st.Sched
	if !sched.Running(actor) {
		return nil
	}
	if p := h.c.procsOf(role); p != nil {
		if err := p.shots[h.name].kill(ctx); err != nil { // the command its runner runs
			return err
		}
	}
	if err := sched.Kill(ctx, actor); err != nil {
		return err
	}
	err := h.as(ctx, actor).Unlock(node.LockPath(operandName))
	if errors.Is(err, node.ErrNotHeld) {
		err = nil
	}
	return err
}

// startMonitor starts the startup-monitor of revision (its manifest's).
func (h *host) startMonitor(ctx context.Context, revision int) error {
	if p := h.c.procsOf(RoleStartupMonitor); p != nil {
		return p.start(ctx, h, revision)
	}
	actor := nodeActor(RoleStartupMonitor, h.name)
	core, err := h.c.monitor.instance()
	if err != nil {
		return err
	}
	m := &monitor{h: h, actor: actor, revision: revision, core: core,
		client: h.c.st.Sched.Client(h.c.st.API, actor, RoleStartupMonitor),
		exec:   executor{h: h, actor: actor, write: h.c.monitorWrite},
		http:   &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: probeTimeout}}
	req := request(RoleStartupMonitor, h.name)
	mirror := mirrorName(h.name)
	return h.startActor(ctx, RoleStartupMonitor, m, sim.Watch{GVK: PodGVK, Name: mirror,
		Map: func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{req} }})
}

// killMonitor kills the startup-monitor process (a scenario's fault).
func (h *host) killMonitor(ctx context.Context) error { return h.kill(ctx, RoleStartupMonitor) }

// restartMonitor starts the startup-monitor again from its manifest, if
// its manifest is still there and it does not run.
func (h *host) restartMonitor(ctx context.Context) error {
	if h.c.st.Sched.Running(nodeActor(RoleStartupMonitor, h.name)) || h.c.procsOf(RoleStartupMonitor) != nil && h.c.procs.running(h) {
		return nil
	}
	data, err := h.as(ctx, nodeActor(RoleKubelet, h.name)).ReadFile(node.MonitorManifestPath(operandName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return h.startMonitor(ctx, revisionOf(data))
}

// order is the operator asking the installer to install revision.
func (h *host) order(revision int) {
	h.mu.Lock()
	h.want, h.wantSeq = revision, h.wantSeq+1
	h.mu.Unlock()
	sched := h.c.st.Sched
	sched.Enqueue(nodeActor(RoleInstaller, h.name), request(RoleInstaller, h.name), sched.Now())
}

// pending is the installer's next ask, if one is not done.
func (h *host) pending() (seq, revision int, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.wantSeq, h.want, h.wantSeq > h.doneSeq
}

func (h *host) done(seq int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.doneSeq = max(h.doneSeq, seq)
}

// lockHolder is who holds the installer lock, "" if nobody.
func lockHolder(fsys *node.Handle) string {
	data, err := fsys.ReadFile(node.LockPath(operandName))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// revisions are the revisions whose resource directories are on the node.
func revisions(fsys *node.Handle) ([]int, error) {
	names, err := fsys.ReadDir(node.StaticPodsDir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range names {
		if r, ok := revisionDirRevision(n); ok {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out, nil
}

// linked is the revision last-known-good points at, 0 if none.
func linked(fsys *node.Handle) int {
	target, err := fsys.Readlink(node.LastKnownGood)
	if err != nil {
		return 0
	}
	dir, name := target[:strings.LastIndexByte(target, '/')], target[strings.LastIndexByte(target, '/')+1:]
	if dir != node.StaticPodsDir {
		return 0
	}
	r, _ := revisionDirRevision(name)
	return r
}
