package staticpod

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/node"
)

// The installer and the pruner as commands (process mode). In the seed
// both are pods run once per piece of work, as library-go's installer and
// prune pods are: an installer installs one revision on one node and
// exits; a pruner prunes and exits. So a team's installer or pruner is a
// command the node's runner (actor "installer/<node>" or "pruner/<node>",
// an opcert actor: a scenario's kill and restart act on it and on the
// command it runs) starts once per piece of work. What the command
// changed on the node is filed as the runner's actor's (node.Outside),
// and its exit status is what the world sees:
//
//   - the installer runs once per ask of the operator, with {revision}
//     and {sourceDir}; status 0 carries the ask out, any other leaves it
//     to be done again retryFailed later (a failed installer pod is
//     created again); a killed one does it again when restarted. It waits
//     for the lock itself (003 §Coordination).
//   - the pruner runs when a resource directory or the last-known-good
//     link changes (as opcert's pruner looks), with {keep}; a change
//     while it runs runs it again once it has ended.
//
// A command's runs are not process events on the timeline: the runner is
// the node's installer or pruner, up from the start, down only while a
// scenario has killed it; the report lists how each run ended
// (conformance.Processes).

// installerPlaceholders are what an installer's command may hold besides
// {role}: the node's ({name}, {root}, {manifestsDir}, {resourcesDir},
// {lockFile}, {terminationLog}: see monitorPlaceholders), {revision} the
// revision asked, and {sourceDir} that revision's files as the operator
// rendered them (its pod manifest kube-apiserver-pod.yaml, its
// startup-monitor's kube-apiserver-startup-monitor-pod.yaml, its
// configmaps as configmaps/<name>/<key>): what library-go's installer
// copies from the API server's revisioned ConfigMaps. It lies under
// {root} in a directory whose name begins with a dot, which the node does
// not show: nothing done there is on the timeline.
var installerPlaceholders = []string{"name", "root", "manifestsDir", "resourcesDir", "lockFile", "terminationLog",
	"revision", "sourceDir"}

// prunerPlaceholders are what a pruner's command may hold besides
// {role}: the node's (see installerPlaceholders) and {keep}, how many of
// the newest revisions it keeps besides last-known-good's.
var prunerPlaceholders = []string{"name", "root", "manifestsDir", "resourcesDir", "lockFile", "terminationLog", "keep"}

// sourceDir is where, under a node's root, the operator's rendered
// revisions are (a dot name: not part of the node).
const sourceDir = "/.operator-revisions"

// retryFailed is how long after a failed command (not status 0) its work
// is done again, in the scenario's time: a resync.
const retryFailed = time.Minute

// oneShot runs a node's installer or pruner command, once per piece of
// work: the reconciler of the runner's actor.
type oneShot struct {
	h     *host
	p     *nodeProcs
	actor string
	// started: a command of its runs or has ended and is not reaped yet
	// (read by the poller).
	started atomic.Bool
	seq     int       // the installer's ask its command carries out
	again   bool      // woken while the command ran: the pruner runs again
	retry   time.Time // after a failed command, when its work is done again
}

func newOneShot(h *host, p *nodeProcs) *oneShot {
	return &oneShot{h: h, p: p, actor: nodeActor(p.role, h.name)}
}

// ended tells whether its command has ended and is not reaped yet.
func (s *oneShot) ended() bool { return s.started.Load() && !s.p.procs.Running(s.actor) }

func (s *oneShot) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	c := s.h.c
	if c.closed.Load() {
		return reconcile.Result{}, nil
	}
	now := c.st.Sched.Now()
	run := s.p.role == RoleInstaller // the pruner runs when woken by a change
	if s.started.Load() {
		if s.p.procs.Running(s.actor) {
			s.again = true
			return reconcile.Result{}, nil // the poller wakes it when the command ends
		}
		// Its changes first, then a lock it left, as the kernel releases
		// a dead process's.
		if err := s.h.fs.ReleaseOutside(ctx); err != nil {
			return reconcile.Result{}, err
		}
		ok, _ := s.p.procs.Reap(s.actor)
		s.started.Store(false)
		switch {
		case !ok:
			s.retry, run = now.Add(c.st.Scaled(retryFailed)), true
		case s.p.role == RoleInstaller:
			s.h.done(s.seq)
		}
		run, s.again = run || s.again, false
		if !run {
			return reconcile.Result{}, nil
		}
	}
	if now.Before(s.retry) {
		return after(now, s.retry), nil
	}
	vars := s.p.paths(s.h)
	switch s.p.role {
	case RoleInstaller:
		seq, revision, pending := s.h.pending()
		if !pending {
			return reconcile.Result{}, nil
		}
		src, err := s.h.render(revision)
		if err != nil {
			return reconcile.Result{}, err
		}
		s.seq, vars["revision"], vars["sourceDir"] = seq, strconv.Itoa(revision), src
	case RolePruner:
		vars["keep"] = strconv.Itoa(c.spec.KeepCount())
	}
	if err := s.p.procs.StartWith(s.actor, s.p.role, vars, s.p.cmd.Command); err != nil {
		return reconcile.Result{}, err
	}
	s.started.Store(true)
	return reconcile.Result{}, nil
}

// kill kills its command, if one runs (a scenario's kill of the runner):
// what it changed is filed, the lock it held released; the work is done
// again once the runner is restarted.
func (s *oneShot) kill(ctx context.Context) error {
	if !s.started.Swap(false) {
		return nil
	}
	if err := s.p.kill(ctx, s.h); err != nil {
		return err
	}
	// One that had ended by itself is reaped as the runner would have.
	if ok, ended := s.p.procs.Reap(s.actor); ended && ok && s.p.role == RoleInstaller {
		s.h.done(s.seq)
	}
	return nil
}

// render puts revision's files as the operator rendered them under the
// node's sourceDir, and returns that host directory.
func (h *host) render(revision int) (string, error) {
	dir := filepath.Join(h.fs.Dir(), sourceDir, filepath.Base(node.RevisionDir(operandName, revision)))
	for _, f := range h.resources(revision) {
		rel := strings.TrimPrefix(f.path, node.RevisionDir(operandName, revision)+"/")
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}
