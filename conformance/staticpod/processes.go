package staticpod

import (
	"context"
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/node"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode: a team's binary plays the startup-monitor of every node
// (opcert run --time-scale 0.01 --subject
// staticpod.startup-monitor=exec:'./monitor --revision {revision} ...'),
// in real time, against opcert's API server; the node stays simulated.
//
//   - The kubelet starts the process when a startup-monitor manifest
//     appears (a new revision's replaces it) and kills it when the
//     manifest is removed, as it does the reference's actor: one instance
//     per node, actor "startup-monitor/<node>".
//   - The process sees the node as the seed's paths under a directory of
//     its own, and the operand's endpoints on a loopback port: its
//     command's placeholders, also set as OPCERT_<KEY> (monitorPlaceholders).
//   - Its changes to the node's files reach the timeline as the
//     reference's do, attributed to it: the node reports what differs on
//     disk from what opcert's actors left (node.Track, node.Outside)
//     before any actor reads or changes the node, and a poller has the
//     kubelet look as soon as something differs (pollEvery), so that the
//     kubelet reacts in real time and never before the change is filed. A
//     manifest it writes is described as the reference's are
//     ("revision=<N>" and its fallback annotations).
//   - A lock file it creates in /var/lock is its lock, released by the
//     node when its process is killed, as the kernel releases a flock.
//   - Times are the scenario's scaled (conformance.Scalable.Scaled): the {timeout}
//     it is given, the operand models, the rules' bounds.

// monitorPlaceholders are what a startup-monitor's command may hold
// besides {role}: {name} the node; {root} the node's "/" on the host,
// under which the seed's paths are; {manifestsDir}, {resourcesDir},
// {lockFile} and {terminationLog}, those paths already joined to it, and
// {manifest} the monitor's own manifest (which it removes once done);
// {healthUrl} the operand's endpoints (/healthz, /healthz/etcd,
// /readyz); {namespace} and {pod} the mirror pod as the API server names
// it; {revision} the revision of the monitor's manifest; {timeout} the
// readiness timeout, scaled, as a Go duration.
var monitorPlaceholders = []string{"root", "manifest", "manifestsDir", "resourcesDir", "lockFile", "terminationLog",
	"healthUrl", "namespace", "pod", "revision", "timeout"}

// clusterCannot is why no role of seed 003 is played by a Deployment:
// the node the roles act on is simulated, its files in opcert's run
// directory, which no pod on a cluster sees.
const clusterCannot = "a Deployment on a cluster cannot see a simulated node's files or its operand's loopback endpoints: the startup-monitor plays in process mode only"

// pollEvery is how often the nodes are looked at for the process's
// changes: well inside the second of tolerance a real-time run's rules
// allow, and a walk of a few dozen files.
const pollEvery = 20 * time.Millisecond

// monitorProcs plays the startup-monitors as processes.
type monitorProcs struct {
	c     *cluster
	cmd   conformance.Process
	procs *conformance.Processes
}

func newMonitorProcs(c *cluster, cmd conformance.Process) (*monitorProcs, error) {
	if c.st.Processes == nil || !c.st.Sched.Realtime() {
		return nil, errors.New(Name + ": a startup-monitor that is an executable needs a real-time run on opcert's own API server (process mode)")
	}
	return &monitorProcs{c: c, cmd: cmd, procs: c.st.Processes}, nil
}

// track has the node report the process's changes (before any actor reads
// or changes it), and the poller look for them.
func (m *monitorProcs) track(h *host) error {
	return h.fs.Track(nodeActor(RoleStartupMonitor, h.name), outsideNote)
}

// outsideNote describes a pod manifest the process wrote as the
// reference's writes are described (the rules' timeline contract).
func outsideNote(p string, data []byte) string {
	if path.Dir(p) != node.ManifestsDir || !strings.HasSuffix(p, ".yaml") {
		return ""
	}
	pod, err := parsePod(data)
	if err != nil {
		return ""
	}
	return manifestDetail(annotatedRevision(pod.Annotations), pod.Annotations)
}

// poll has each node's kubelet look once the process changed something,
// until the run ends.
func (m *monitorProcs) poll(ctx context.Context) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	sched := m.c.st.Sched
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if m.c.closed.Load() {
			return
		}
		for _, h := range m.c.hosts {
			if changed, err := h.fs.Differs(); err == nil && changed {
				sched.Enqueue(nodeActor(RoleKubelet, h.name), request(RoleKubelet, h.name), sched.Now())
			}
		}
	}
}

// start starts the startup-monitor process of revision on h.
func (m *monitorProcs) start(ctx context.Context, h *host, revision int) error {
	actor := nodeActor(RoleStartupMonitor, h.name)
	root := h.fs.Dir()
	vars := map[string]string{
		"name":           h.name,
		"root":           root,
		"manifest":       root + node.MonitorManifestPath(operandName),
		"manifestsDir":   root + node.ManifestsDir,
		"resourcesDir":   root + node.StaticPodsDir,
		"lockFile":       root + node.LockPath(operandName),
		"terminationLog": root + node.TerminationLogPath(operandName),
		"healthUrl":      h.srv.URL,
		"namespace":      m.c.st.Sched.ServerName(schema.GroupKind{Kind: "Namespace"}, mirrorNamespace),
		"pod":            mirrorName(h.name),
		"revision":       strconv.Itoa(revision),
		"timeout":        m.c.cfg.Timeout.String(),
	}
	if err := m.procs.StartWith(actor, RoleStartupMonitor, vars, m.cmd.Command); err != nil {
		return err
	}
	m.record(ctx, actor, timeline.VerbStart)
	return nil
}

// kill kills h's startup-monitor process, if it runs: what it changed
// before is filed first, the lock it held released after.
func (m *monitorProcs) kill(ctx context.Context, h *host) error {
	actor := nodeActor(RoleStartupMonitor, h.name)
	if !m.procs.Running(actor) {
		return h.fs.ReleaseOutside(ctx)
	}
	if _, err := h.fs.Outside(ctx); err != nil {
		return err
	}
	err := m.procs.Kill(actor)
	m.record(ctx, actor, timeline.VerbKill)
	return errors.Join(err, h.fs.ReleaseOutside(ctx))
}

func (m *monitorProcs) running(h *host) bool {
	return m.procs.Running(nodeActor(RoleStartupMonitor, h.name))
}

// record puts a start or kill of the process on the timeline, as the
// scheduler does its actors'.
func (m *monitorProcs) record(ctx context.Context, actor, verb string) {
	m.c.st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: RoleStartupMonitor, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
}
