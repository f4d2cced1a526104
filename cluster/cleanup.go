package cluster

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CleanupTimeout bounds Cleanup: it runs after Ctrl-C too, and opcert
// must exit soon after (a second Ctrl-C exits at once).
const CleanupTimeout = 30 * time.Second

// Cleanup deletes what the run created, newest first (namespaced objects
// one by one too, so that nothing waits on a namespace controller), and
// then waits for its namespaces to be gone; the run's namespace (its
// record, named Prefix, the first it created) is kept if anything could
// not be deleted, for the next run's Sweep; all within timeout, on a
// context of its own, since the run's may be cancelled. It returns how
// many objects it deleted and, said one by one, what is left.
func (g *Guard) Cleanup(timeout time.Duration) (deleted int, left []string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	g.mu.Lock()
	created := append([]made(nil), g.created...)
	g.mu.Unlock()
	var namespaces []string
	for i := len(created) - 1; i >= 0; i-- {
		m := created[i]
		if m.Kind == namespaceKind && m.Name == g.Prefix && len(left) > 0 {
			// The run's record: the next run sweeps what is left.
			left = append(left, fmt.Sprintf("Namespace %s (label %s=%s): kept, the record of what is left, which the next run on the cluster deletes", m.Name, RunLabel, g.ID))
			continue
		}
		u := object(m)
		err := g.Delete(ctx, u, client.PropagationPolicy("Background"))
		switch {
		case err == nil:
			deleted++
		case apierrors.IsNotFound(err):
		default:
			left = append(left, fmt.Sprintf("%s (label %s=%s): not deleted: %v", m.Ref, RunLabel, g.ID, err))
			continue
		}
		if m.Kind == namespaceKind {
			namespaces = append(namespaces, m.Name)
		}
	}
	for _, ns := range namespaces {
		if err := g.waitGone(ctx, made{Ref: Ref{Kind: namespaceKind, Name: ns}, version: "v1"}); err != nil {
			left = append(left, fmt.Sprintf("Namespace %s (label %s=%s): deleted, still terminating: %v", ns, RunLabel, g.ID, err))
		}
	}
	return deleted, left
}

func object(m made) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(m.Kind.WithVersion(m.version))
	u.SetNamespace(m.Namespace)
	u.SetName(m.Name)
	return u
}

// waitGone polls until the object is gone or ctx ends.
func (g *Guard) waitGone(ctx context.Context, m made) error {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		err := g.Get(ctx, client.ObjectKey{Namespace: m.Namespace, Name: m.Name}, object(m))
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
