package stackable

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
)

// On a cluster (cluster mode) the pods are the cluster's, in the run's own
// namespaces, and a pod fault is made as the cluster would make it
// (decision "Pod faults on a cluster", conformance/stackable/README.md):
//
//   - failPod sets the pod's spec.activeDeadlineSeconds to 1 (a field a
//     live pod accepts, lowered only): its kubelet stops its containers
//     and sets its phase Failed (reason DeadlineExceeded), and its
//     controller does with it what it does with any failed pod: a
//     StatefulSet or a DaemonSet deletes it and makes it again, a
//     ReplicaSet makes another and leaves it. The simulated pod stays
//     Failed until recoverPod: the step is Unlike it.
//   - recoverPod deletes the pod failPod failed if it is still there,
//     Failed (a Deployment's, whose replacement runs already); the
//     controller's replacement is the recovery.
//   - stackable-load's failures are made the same way, its lost pods
//     left out.
//   - losePod is skipped: phase Unknown is what a node that stopped
//     reporting leaves, which the API cannot make of a pod whose kubelet
//     writes its status, and a deleted pod is not Unknown (the table's
//     rows differ: Available False, not Unknown).
type clusterPods struct {
	w *world

	mu     sync.Mutex
	failed map[PodRef]types.NamespacedName // the pod failPod failed, by the step's reference
}

// activeDeadline is the spec.activeDeadlineSeconds failPod gives a pod:
// the least, so that its kubelet fails it at its next look.
const activeDeadline = 1

// errLost is why losePod does not apply on a cluster.
var errLost = &conformance.Skipped{Reason: "on a cluster a pod's phase is its kubelet's to write: phase Unknown is what a node that stops reporting leaves, which the API cannot make, and deleting the pod is not the same state (its controller replaces it: Available False, not Unknown)"}

func (p *clusterPods) fail(ctx context.Context, r PodRef) error {
	ns, name, err := p.w.pod(ctx, r)
	if err != nil {
		return err
	}
	deadline, err := p.failPod(ctx, ns, name)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.failed[r] = types.NamespacedName{Namespace: ns, Name: name}
	p.mu.Unlock()
	return &conformance.Unlike{Reason: fmt.Sprintf("pod %s given spec.activeDeadlineSeconds %d: its kubelet fails it (phase Failed, reason DeadlineExceeded), and its controller replaces it at once (a StatefulSet's or a DaemonSet's deleted and made again; a ReplicaSet's left Failed beside a new one), where the simulated pod stays Failed until recoverPod",
		name, deadline)}
}

// failPod lowers the pod's activeDeadlineSeconds to activeDeadline (or
// keeps a lower one), which it returns.
func (p *clusterPods) failPod(ctx context.Context, ns, name string) (int64, error) {
	pod := &corev1.Pod{}
	if err := p.w.user.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
		return 0, err
	}
	deadline := int64(activeDeadline)
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && *d < deadline {
		deadline = *d
	}
	patch := client.RawPatch(types.MergePatchType, fmt.Appendf(nil, `{"spec":{"activeDeadlineSeconds":%d}}`, deadline))
	if err := p.w.user.Patch(ctx, pod, patch); err != nil {
		return 0, fmt.Errorf("failing pod %s/%s: %w", ns, name, err)
	}
	return deadline, nil
}

func (p *clusterPods) recover(ctx context.Context, r PodRef) error {
	p.mu.Lock()
	key, ok := p.failed[r]
	delete(p.failed, r)
	p.mu.Unlock()
	if !ok {
		return &conformance.Skipped{Reason: fmt.Sprintf("opcert failed no pod of cluster %s's role %s at place %d on the cluster (a lost pod's step is skipped there): nothing to recover", r.Cluster, r.Role, r.Pod)}
	}
	how, err := p.recoverPod(ctx, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	return &conformance.Unlike{Reason: how}
}

// recoverPod deletes the pod failPod failed if it is still there, Failed,
// and says what it did.
func (p *clusterPods) recoverPod(ctx context.Context, ns, name string) (string, error) {
	pod := &corev1.Pod{}
	switch err := p.w.user.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); {
	case apierrors.IsNotFound(err):
		return fmt.Sprintf("pod %s was replaced by its controller when it failed: the replacement is the recovery", name), nil
	case err != nil:
		return "", err
	case pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodFailed:
		return fmt.Sprintf("pod %s is its controller's replacement of the failed one (phase %s): the replacement is the recovery", name, pod.Status.Phase), nil
	}
	if err := p.w.user.Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
		return "", fmt.Errorf("deleting failed pod %s/%s: %w", ns, name, err)
	}
	return fmt.Sprintf("pod %s, Failed beside its controller's replacement, deleted: the replacement is the recovery", name), nil
}

// loadFaults are the load's faults on the cluster's pods, by name (queueLoad):
// a lost pod is left out, as losePod is skipped.
func (p *clusterPods) loadFaults() podFaults {
	return podFaults{
		fail: func(ctx context.Context, ns, name string) error {
			_, err := p.failPod(ctx, ns, name)
			return err
		},
		lose: func(context.Context, string, string) error { return nil },
		recover: func(ctx context.Context, ns, name string) error {
			_, err := p.recoverPod(ctx, ns, name)
			return err
		},
	}
}
