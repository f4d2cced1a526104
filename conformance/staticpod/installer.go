package staticpod

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/sim/node"
)

// installer installs the revisions the operator asks for on its node: the
// adapter of the subject's core (reference/staticpod's Install, a variant,
// or a team's). It looks when asked and when the installer lock is
// released; it has no timer of its own but its writes' time.
type installer struct {
	h     *host
	actor string
	core  contract.Installer // the subject's, for this process
	exec  executor
	seq   int // the ask it is carrying out
}

func (i *installer) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if i.h.c.closed.Load() {
		return reconcile.Result{}, nil
	}
	now := i.h.c.st.Sched.Now()
	if !i.exec.busy() {
		seq, revision, ok := i.h.pending()
		if !ok {
			return reconcile.Result{}, nil
		}
		held := lockHolder(i.h.as(ctx, i.actor)) != ""
		ops := i.core.Install(revision, held)
		if ops == nil {
			return reconcile.Result{}, nil // waits for the lock
		}
		i.seq = seq
		i.exec.start(ops)
	}
	due, err := i.exec.run(ctx, now)
	switch {
	case errors.Is(err, errLockLost):
		return reconcile.Result{}, nil
	case err != nil:
		return reconcile.Result{}, err
	case !due.IsZero():
		return after(now, due), nil
	}
	i.h.done(i.seq)
	if _, _, more := i.h.pending(); more {
		// Asked again meanwhile: the next install, at this instant.
		i.h.c.st.Sched.Enqueue(i.actor, request(RoleInstaller, i.h.name), now)
	}
	return reconcile.Result{}, nil
}

// pruner deletes old revisions' resource directories on its node: the
// adapter of the subject's core (reference/staticpod's Prune, a variant,
// or a team's). It looks when a resource directory or the last-known-good
// link changes.
type pruner struct {
	h     *host
	actor string
	core  contract.Pruner // the subject's, for this process
}

func (p *pruner) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	if p.h.c.closed.Load() {
		return reconcile.Result{}, nil
	}
	fsys := p.h.as(ctx, p.actor)
	revs, err := revisions(fsys)
	if err != nil {
		return reconcile.Result{}, err
	}
	for _, r := range p.core.Prune(revs, p.h.c.spec.KeepCount(), linked(fsys)) {
		if err := fsys.Remove(node.RevisionDir(operandName, r)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return reconcile.Result{}, nil
}
