package staticpod

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/sim/node"
)

// executor runs a core's file operations (reference/staticpod Op) in
// order for one actor. Copying a revision's files and writing a manifest
// change the node at once, then keep the actor busy for its write time
// (the scenario's writeTime, 0 by default: a copy checked and synced)
// before its next operation, the installer lock held meanwhile if it took
// it: the next operation comes at that later instant.
type executor struct {
	h     *host
	actor string
	write time.Duration
	ops   []contract.Op
	due   time.Time // when the next operation may run; zero: now
}

func (x *executor) busy() bool { return len(x.ops) > 0 }

func (x *executor) start(ops []contract.Op) { x.ops, x.due = ops, time.Time{} }

// errLockLost is a TakeLock that found the lock held: the plan is dropped
// and the actor decides again when the lock is released.
var errLockLost = errors.New("the installer lock is held")

// run carries out the operations due by now. It returns when to come back
// for the next one (zero when done); errLockLost if the lock was taken
// first. A plan that fails is dropped, and the lock it took released.
func (x *executor) run(ctx context.Context, now time.Time) (time.Time, error) {
	fsys := x.h.as(ctx, x.actor)
	for len(x.ops) > 0 {
		if now.Before(x.due) {
			return x.due, nil
		}
		op := x.ops[0]
		if err := x.h.do(fsys, op); err != nil {
			x.ops = nil
			if uerr := fsys.Unlock(node.LockPath(operandName)); uerr != nil && !errors.Is(uerr, node.ErrNotHeld) {
				err = errors.Join(err, uerr)
			}
			return time.Time{}, err
		}
		x.ops = x.ops[1:]
		if timed(op) && x.write > 0 {
			x.due = now.Add(x.write)
		}
	}
	return time.Time{}, nil
}

// timed tells whether an operation copies files, and so takes time.
func timed(op contract.Op) bool {
	return op.Kind == contract.WriteResources || op.Kind == contract.WriteManifest
}

// do carries out one operation on the node as fsys's actor.
func (h *host) do(fsys *node.Handle, op contract.Op) error {
	lock := node.LockPath(operandName)
	switch op.Kind {
	case contract.TakeLock:
		if err := fsys.Lock(lock); errors.Is(err, node.ErrLocked) {
			return errLockLost
		} else if err != nil {
			return err
		}
		return nil
	case contract.ReleaseLock:
		return fsys.Unlock(lock)
	case contract.WriteResources:
		return h.writeResources(fsys, op.Revision)
	case contract.WriteManifest:
		return h.writeManifest(fsys, op.Pod, op.Revision, op.Annotations)
	case contract.RemoveManifest:
		p := node.ManifestPath(operandName)
		if op.Pod == contract.StartupMonitor {
			p = node.MonitorManifestPath(operandName)
		}
		if err := fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	case contract.LinkLastKnownGood:
		return fsys.Symlink(node.RevisionDir(operandName, op.Revision), node.LastKnownGood)
	}
	return fmt.Errorf("unknown file operation %v", op.Kind)
}

// monitorCopy is where a revision keeps its startup-monitor's manifest.
func monitorCopy(revision int) string {
	return node.RevisionDir(operandName, revision) + "/" + monitorPodName + "-pod.yaml"
}

// writeResources copies a revision's files into its resource directory:
// its pod manifest, its startup-monitor's, and its configmap.
func (h *host) writeResources(fsys *node.Handle, revision int) error {
	for _, f := range h.resources(revision) {
		if err := fsys.WriteFile(f.path, f.data); err != nil {
			return err
		}
	}
	return nil
}

// resourceFile is one file of a revision's resource directory.
type resourceFile struct {
	path string // on the node
	data []byte
}

// resources are a revision's files: its pod manifest, its
// startup-monitor's, and its configmap.
func (h *host) resources(revision int) []resourceFile {
	model := string(h.c.spec.Model(revision).Kind)
	return []resourceFile{
		{node.RevisionManifestPath(operandName, revision), operandManifest(revision, model)},
		{monitorCopy(revision), monitorManifest(revision, h.c.cfg.Timeout)},
		{node.ConfigMapPath(operandName, revision, "config", "config.yaml"), configFile(revision, model)},
	}
}

// writeManifest copies a revision's pod manifest (the operand's or the
// startup-monitor's) from its resource directory into the manifest
// directory, with annotations added (a fallback's).
func (h *host) writeManifest(fsys *node.Handle, pod contract.Pod, revision int, ann map[string]string) error {
	from, to := node.RevisionManifestPath(operandName, revision), node.ManifestPath(operandName)
	if pod == contract.StartupMonitor {
		from, to = monitorCopy(revision), node.MonitorManifestPath(operandName)
	}
	data, err := fsys.ReadFile(from)
	if err != nil {
		return err
	}
	if data, err = annotate(data, ann); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return fsys.WriteFileNoted(to, data, manifestDetail(revision, ann))
}
