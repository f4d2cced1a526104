package olm

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The sample CRDs on a cluster (cluster mode, deployments.go): the
// cluster's, shared by every olm run on it, each rewriting their condition
// annotations; a run holds them while it plays, so that olm runs on one
// cluster play one at a time, and puts back what it found at its end
// (decision "The sample CRDs are shared, held, and put back", README.md).

// heldBy is the annotation by which a run holds the sample CRDs on a
// cluster; its value names the holding run's operator namespace.
const heldBy = "opcert.io/olm-run"

// holdCRDs holds the sample CRDs for the run (heldBy) and remembers
// their annotations, which the run's end puts back on those it held: all
// are read and checked before any is written, so that a run refused
// holds none.
func (w *world) holdCRDs(ctx context.Context) error {
	me := w.st.Sched.ServerName(namespaceKind, w.spec.namespace())
	var crds []*unstructured.Unstructured
	for _, name := range sortedKeys(ownedCRDs) {
		u := object(CRDGVK, "", name)
		if err := w.st.API.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return fmt.Errorf("reading CRD %s (opcert kind up installs it; else kubectl apply -f fixtures/): %w", name, err)
		}
		if other := u.GetAnnotations()[heldBy]; other != "" && other != me {
			alive, err := w.running(ctx, other)
			if err == nil && alive {
				err = fmt.Errorf("another olm run (namespace %s) holds CRD %s: olm runs on a cluster play one at a time, as they share the sample CRDs; wait for it to end", other, name)
			}
			if err != nil {
				return err
			}
		}
		crds = append(crds, u)
	}
	// What the run holds, as it found it; the run's end (Ctrl-C: maybe
	// while this still writes) puts it back.
	var mu sync.Mutex
	found := map[string]map[string]string{}
	w.st.Go(func(ctx context.Context) {
		<-ctx.Done()
		mu.Lock()
		defer mu.Unlock()
		if len(found) > 0 {
			w.releaseCRDs(found)
		}
	})
	for _, u := range crds {
		ann := u.GetAnnotations()
		held := maps.Clone(ann)
		if held == nil {
			held = map[string]string{}
		}
		held[heldBy] = me
		u.SetAnnotations(held)
		// The resource version read: a run that took it meanwhile makes
		// this one fail, not both play.
		if err := w.st.API.Update(ctx, u); err != nil {
			return fmt.Errorf("holding CRD %s for the run: %w", u.GetName(), err)
		}
		delete(ann, heldBy) // a hold taken over is not put back
		mu.Lock()
		found[u.GetName()] = ann
		mu.Unlock()
	}
	return nil
}

// running tells whether the run holding the sample CRDs still runs: its
// operator's namespace exists and is not being deleted (a run deletes its
// namespaces at its end, and the next opcert run those of a run killed
// outright).
func (w *world) running(ctx context.Context, namespace string) (bool, error) {
	ns := &corev1.Namespace{}
	err := w.st.API.Get(ctx, client.ObjectKey{Name: namespace}, ns)
	if client.IgnoreNotFound(err) != nil {
		return false, fmt.Errorf("reading namespace %s, whose run holds the sample CRDs: %w", namespace, err)
	}
	return err == nil && ns.DeletionTimestamp == nil, nil
}

// releaseCRDs puts back the annotations the run found on the sample CRDs,
// its hold gone, within restoreTimeout of a context of its own (the run's
// is over); the report says so with the Deployment.
func (w *world) releaseCRDs(found map[string]map[string]string) {
	ctx, cancel := context.WithTimeout(context.Background(), restoreTimeout)
	defer cancel()
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(found)) {
		u := object(CRDGVK, "", name)
		err := w.st.API.Get(ctx, client.ObjectKeyFromObject(u), u)
		if err == nil {
			u.SetAnnotations(found[name])
			err = w.st.API.Update(ctx, u)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("CRD %s: %v", name, err))
		}
	}
	note := "the sample CRDs' annotations put back as the run found them, its hold (" + heldBy + ") gone"
	if len(failed) > 0 {
		note = "the sample CRDs' annotations NOT put back (remove " + heldBy + " by hand): " + strings.Join(failed, "; ")
	}
	w.deployed.Note(actorOperator, note)
}

// restoreTimeout bounds releaseCRDs, which runs once the run's context is
// gone (Ctrl-C too).
const restoreTimeout = 20 * time.Second
