package staticpod

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/node"
	"github.com/opcert/opcert/sim/timeline"
)

// Process mode: a team's binary plays one role of every node (opcert run
// --time-scale 0.01 --subject staticpod.startup-monitor=exec:'./monitor
// --revision {revision} ...', or staticpod.installer=, or
// staticpod.pruner=), in real time, against opcert's API server; the node
// stays simulated.
//
//   - The startup-monitor is a process of its manifest: the kubelet
//     starts it when a startup-monitor manifest appears (a new revision's
//     replaces it) and kills it when the manifest is removed, as it does
//     the reference's actor: one instance per node, actor
//     "startup-monitor/<node>".
//   - The installer and the pruner are commands run once per piece of
//     work (commands.go): the installer per ask of the operator, the
//     pruner per change of the resource directories.
//   - The process sees the node as the seed's paths under a directory of
//     its own, and the operand's endpoints on a loopback port: its
//     command's placeholders, also set as OPCERT_<KEY> (monitorPlaceholders,
//     installerPlaceholders, prunerPlaceholders).
//   - Its changes to the node's files reach the timeline as the
//     reference's do, attributed to it: the node reports what differs on
//     disk from what opcert's actors left (node.Track, node.Outside)
//     before any actor reads or changes the node, and a poller has the
//     kubelet look as soon as something differs (pollEvery), so that the
//     kubelet reacts in real time and never before the change is filed. A
//     manifest it writes is described as the reference's are
//     ("revision=<N>" and its fallback annotations).
//   - A lock file it creates in /var/lock is its lock, released by the
//     node when its process is killed or ends, as the kernel releases a
//     flock.
//   - Times are the scenario's scaled (conformance.Scalable.Scaled): the {timeout}
//     it is given, the operand models, the rules' bounds.
//   - One role per run: the node files every change made from outside as
//     one actor's (node.Track), so two roles played by processes could
//     not be told apart on the timeline.

// monitorPlaceholders are what a startup-monitor's command may hold
// besides {role}: {name} the node; {root} the node's "/" on the host,
// under which the seed's paths are; {manifestsDir}, {resourcesDir},
// {lockFile} and {terminationLog}, those paths already joined to it, and
// {manifest} the monitor's own manifest (which it removes once done);
// {healthUrl} the operand's endpoints (/healthz, /healthz/etcd,
// /readyz); {namespace} and {pod} the mirror pod as the API server names
// it; {revision} the revision of the monitor's manifest; {timeout} the
// readiness timeout, scaled, as a Go duration.
var monitorPlaceholders = []string{"name", "root", "manifest", "manifestsDir", "resourcesDir", "lockFile", "terminationLog",
	"healthUrl", "namespace", "pod", "revision", "timeout"}

// clusterCannot is why no role of seed 003 is played by a Deployment:
// the node the roles act on is simulated, its files in opcert's run
// directory, which no pod on a cluster sees.
const clusterCannot = "a Deployment on a cluster cannot see a simulated node's files or its operand's loopback endpoints"

// pollEvery is how often the nodes are looked at for the process's
// changes: well inside the second of tolerance a real-time run's rules
// allow, and a walk of a few dozen files.
const pollEvery = 20 * time.Millisecond

// nodeProcs plays one role of every node as processes.
type nodeProcs struct {
	c     *cluster
	role  string
	cmd   conformance.Process
	procs *conformance.Processes
	// shots are the nodes' command runners (installer, pruner), by node;
	// none for the startup-monitor. Filled before the poller starts.
	shots map[string]*oneShot
}

// executable is the one role of cast an executable plays, "" if none.
func executable(cast conformance.Cast) (string, conformance.Process, error) {
	var role string
	var proc conformance.Process
	for _, r := range []string{RoleStartupMonitor, RoleInstaller, RolePruner} {
		p, ok := cast[r].Impl.(conformance.Process)
		if !ok {
			continue
		}
		if role != "" {
			return "", proc, fmt.Errorf("%s: the %s and the %s are both executables: the node files every change made from outside as one actor's, so one role of seed 003 per run may be played by a process", Name, role, r)
		}
		role, proc = r, p
	}
	return role, proc, nil
}

// playedUnless is played, or none when an executable plays the role (the
// process decides, not a core).
func playedUnless[T any](cast conformance.Cast, role, exe string, none T) (T, error) {
	if role == exe {
		return none, nil
	}
	return played[T](cast, role)
}

func newNodeProcs(c *cluster, sc *scenarios.Scenario, role string, cmd conformance.Process) (*nodeProcs, error) {
	if c.st.Processes == nil || !c.st.Sched.Realtime() {
		return nil, fmt.Errorf("%s: a %s that is an executable needs a real-time run on opcert's own API server (process mode)", Name, role)
	}
	// The scenario's story is the role's slow writes, which opcert cannot
	// give a process's.
	if role == RoleStartupMonitor && c.monitorWrite > 0 || role == RoleInstaller && c.installerWrite > 0 {
		return nil, fmt.Errorf("%s: writeTime gives opcert's %s slow writes; a %s that is an executable writes at its own pace, so this scenario cannot play it", sc.Name, role, role)
	}
	return &nodeProcs{c: c, role: role, cmd: cmd, procs: c.st.Processes, shots: map[string]*oneShot{}}, nil
}

// procsOf is the processes playing role, nil if opcert's subject does.
func (c *cluster) procsOf(role string) *nodeProcs {
	if c.procs == nil || c.procs.role != role {
		return nil
	}
	return c.procs
}

// track has the node report the process's changes (before any actor reads
// or changes it), and the poller look for them.
func (m *nodeProcs) track(h *host) error {
	if m.role != RoleStartupMonitor {
		m.shots[h.name] = newOneShot(h, m)
	}
	return h.fs.Track(nodeActor(m.role, h.name), outsideNote)
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
// and a node's command runner once its command ended, until the run ends.
func (m *nodeProcs) poll(ctx context.Context) {
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
			if s := m.shots[h.name]; s != nil && s.ended() {
				sched.Enqueue(s.actor, request(m.role, h.name), sched.Now())
			}
		}
	}
}

// paths are the placeholders every node process gets: the node and the
// seed's paths under its root.
func (m *nodeProcs) paths(h *host) map[string]string {
	root := h.fs.Dir()
	return map[string]string{
		"name":           h.name,
		"root":           root,
		"manifestsDir":   root + node.ManifestsDir,
		"resourcesDir":   root + node.StaticPodsDir,
		"lockFile":       root + node.LockPath(operandName),
		"terminationLog": root + node.TerminationLogPath(operandName),
	}
}

// start starts the startup-monitor process of revision on h.
func (m *nodeProcs) start(ctx context.Context, h *host, revision int) error {
	actor := nodeActor(RoleStartupMonitor, h.name)
	vars := m.paths(h)
	vars["manifest"] = h.fs.Dir() + node.MonitorManifestPath(operandName)
	vars["healthUrl"] = h.srv.URL
	vars["namespace"] = m.c.st.Sched.ServerName(schema.GroupKind{Kind: "Namespace"}, mirrorNamespace)
	vars["pod"] = mirrorName(h.name)
	vars["revision"] = strconv.Itoa(revision)
	vars["timeout"] = m.c.cfg.Timeout.String()
	if err := m.procs.StartWith(actor, RoleStartupMonitor, vars, m.cmd.Command); err != nil {
		return err
	}
	m.record(ctx, actor, timeline.VerbStart)
	return nil
}

// kill kills h's process of the role, if it runs: what it changed before
// is filed first, the lock it held released after.
func (m *nodeProcs) kill(ctx context.Context, h *host) error {
	actor := nodeActor(m.role, h.name)
	if !m.procs.Running(actor) {
		return h.fs.ReleaseOutside(ctx)
	}
	if _, err := h.fs.Outside(ctx); err != nil {
		return err
	}
	err := m.procs.Kill(actor)
	if m.role == RoleStartupMonitor {
		m.record(ctx, actor, timeline.VerbKill)
	}
	return errors.Join(err, h.fs.ReleaseOutside(ctx))
}

func (m *nodeProcs) running(h *host) bool {
	return m.procs.Running(nodeActor(m.role, h.name))
}

// record puts a start or kill of the monitor's process on the timeline,
// as the scheduler does its actors'.
func (m *nodeProcs) record(ctx context.Context, actor, verb string) {
	m.c.st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: m.role, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
}
