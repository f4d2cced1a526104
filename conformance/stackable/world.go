package stackable

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ref "github.com/opcert/opcert/reference/stackable"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/workload"
)

// setUp creates the namespaces and the clusters at time zero.
func (w *world) setUp(ctx context.Context) error {
	for _, ns := range w.spec.namespaces() {
		if err := w.user.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return fmt.Errorf("creating namespace %s: %w", ns, err)
		}
	}
	for _, c := range w.spec.clusters() {
		w.clusters[c.Name] = c
		if err := w.user.Create(ctx, clusterObject(c)); err != nil {
			return fmt.Errorf("creating SampleCluster %s/%s: %w", c.namespace(), c.Name, err)
		}
	}
	return nil
}

// clusterObject is the SampleCluster of c.
func clusterObject(c Cluster) *unstructured.Unstructured {
	u := object(c)
	roles := make([]any, 0, len(c.Roles))
	for _, r := range c.Roles {
		m := map[string]any{"name": r.Name, "kind": r.Kind}
		if r.Kind != "DaemonSet" {
			m["replicas"] = int64(r.Replicas)
		}
		roles = append(roles, m)
	}
	spec := map[string]any{"roles": roles}
	if op := c.ClusterOperation; op != nil {
		spec["clusterOperation"] = map[string]any{"reconciliationPaused": op.ReconciliationPaused, "stopped": op.Stopped}
	}
	u.Object["spec"] = spec
	if c.Command != "" {
		u.SetAnnotations(map[string]string{ref.AnnotationCommand: c.Command})
	}
	return u
}

func object(c Cluster) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(SampleClusterGVK)
	u.SetNamespace(c.namespace())
	u.SetName(c.Name)
	return u
}

// stepActions are stackable's step actions (scenario.go names them), each
// with its value's type and what carries it out on the world.
var stepActions = scenarios.Actions(
	scenarios.Act(actFail, onPod((*workload.Controller).FailPod, (*clusterPods).fail)),
	scenarios.Act(actLose, onPod((*workload.Controller).LosePod, func(*clusterPods, context.Context, PodRef) error { return errLost })),
	scenarios.Act(actRecover, onPod((*workload.Controller).RecoverPod, (*clusterPods).recover)),
	scenarios.Act(actScale, func(w *world, ctx context.Context, s Scale) error {
		return w.edit(ctx, s.Cluster, func(u *unstructured.Unstructured) error { return setReplicas(u, s.Role, s.Replicas) })
	}),
	scenarios.Act(actCommand, func(w *world, ctx context.Context, c Command) error {
		return w.edit(ctx, c.Cluster, func(u *unstructured.Unstructured) error {
			ann := u.GetAnnotations()
			if ann == nil {
				ann = map[string]string{}
			}
			if c.Command == "" {
				delete(ann, ref.AnnotationCommand)
			} else {
				ann[ref.AnnotationCommand] = c.Command
			}
			u.SetAnnotations(ann)
			return nil
		})
	}),
	scenarios.Act(actOperation, func(w *world, ctx context.Context, o Operation) error {
		return w.edit(ctx, o.Cluster, func(u *unstructured.Unstructured) error {
			return unstructured.SetNestedMap(u.Object, map[string]any{"reconciliationPaused": o.ReconciliationPaused, "stopped": o.Stopped}, "spec", "clusterOperation")
		})
	}),
	scenarios.Act(actBreak, func(w *world, ctx context.Context, b Break) error {
		return w.edit(ctx, b.Cluster, func(u *unstructured.Unstructured) error {
			return unstructured.SetNestedField(u.Object, b.Message, "spec", "broken")
		})
	}),
	scenarios.Act(actFix, func(w *world, ctx context.Context, cluster string) error {
		return w.edit(ctx, cluster, func(u *unstructured.Unstructured) error {
			unstructured.RemoveNestedField(u.Object, "spec", "broken")
			return nil
		})
	}),
	scenarios.Act(actKill, func(w *world, ctx context.Context, _ bool) error { return w.play.Kill(ctx, actorOperator) }),
	scenarios.Act(actRestart, func(w *world, ctx context.Context, _ bool) error { return w.play.Restart(ctx, actorOperator) }),
)

// onPod is an action on the pod its value names: do on the simulated
// pod, or onCluster on the cluster's (cluster mode, clusterpods.go).
func onPod(do func(p *workload.Controller, ctx context.Context, namespace, name string) error,
	onCluster func(p *clusterPods, ctx context.Context, r PodRef) error) func(*world, context.Context, PodRef) error {
	return func(w *world, ctx context.Context, r PodRef) error {
		if w.pods == nil {
			return onCluster(w.clusterPods, ctx, r)
		}
		ns, name, err := w.pod(ctx, r)
		if err != nil {
			return err
		}
		return do(w.pods, ctx, ns, name)
	}
}

// edit is the user changing a cluster, read again and changed again when
// the operator wrote its status in between (a conflict: in real time the
// operator's writes race the user's, as kubectl edit's do).
func (w *world) edit(ctx context.Context, name string, change func(*unstructured.Unstructured) error) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u := object(w.clusters[name])
		if err := w.user.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return fmt.Errorf("reading SampleCluster %s: %w", name, err)
		}
		if err := change(u); err != nil {
			return err
		}
		return w.user.Update(ctx, u)
	})
}

// setReplicas sets a role's replicas in a SampleCluster's spec.
func setReplicas(u *unstructured.Unstructured, role string, n int) error {
	roles, _, err := unstructured.NestedSlice(u.Object, "spec", "roles")
	if err != nil {
		return err
	}
	for _, r := range roles {
		if m, ok := r.(map[string]any); ok && m["name"] == role {
			m["replicas"] = int64(n)
		}
	}
	return unstructured.SetNestedSlice(u.Object, roles, "spec", "roles")
}

// pod is the namespace and name of the pod a step names: the role's
// workload's pods, by name, as the simulated kubelet runs them now.
func (w *world) pod(ctx context.Context, r PodRef) (string, string, error) {
	names, err := w.podNames(ctx, r)
	if err != nil {
		return "", "", err
	}
	if r.Pod >= len(names) {
		return "", "", fmt.Errorf("cluster %s's role %s has %d pods now: %w %d", r.Cluster, r.Role, len(names), errNoPod, r.Pod)
	}
	return w.clusters[r.Cluster].namespace(), names[r.Pod], nil
}

// errNoPod is a step's pod that does not run.
var errNoPod = errors.New("there is no pod")

// podNames are the names of the pods of r's role, in order, those being
// deleted left out.
func (w *world) podNames(ctx context.Context, r PodRef) ([]string, error) {
	c := w.clusters[r.Cluster]
	pods := &corev1.PodList{}
	err := w.user.List(ctx, pods, client.InNamespace(c.namespace()),
		client.MatchingLabels{ref.LabelInstance: c.Name, ref.LabelComponent: r.Role})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			names = append(names, p.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// podFaults are what the load does to a pod, by namespace and name: on
// the simulated pods (sim/workload's), or on a cluster's (clusterpods.go).
type podFaults struct {
	fail, lose, recover func(ctx context.Context, namespace, name string) error
}

// queueLoad queues the load's pod failures over the run, made by f: each
// cluster's failures, once its pods are up, at exponentially distributed
// intervals, a pod drawn among its replicas failing (or, one time in
// four, lost), recovering RecoverAfter later; all drawn from Seed, so a
// run replays exactly.
func (w *world) queueLoad(duration time.Duration, f podFaults) {
	l := w.spec.Load
	r := rand.New(rand.NewPCG(l.Seed, 1))
	mean := float64(l.MeanTimeToFailure.Duration)
	// A StatefulSet starts its pods one after another: failures begin once
	// every cluster is up.
	up := w.spec.readyAfter() * time.Duration(l.Replicas+1)
	for _, c := range w.spec.loadClusters() {
		ns := c.namespace()
		for at := up + time.Duration(r.ExpFloat64()*mean); at+l.RecoverAfter.Duration < duration; at += time.Duration(r.ExpFloat64() * mean) {
			// The pod by its place among the role's pods, as a step names
			// one: the operator names its workloads, and so its pods.
			which := PodRef{Cluster: c.Name, Role: loadRole, Pod: r.IntN(l.Replicas)}
			fail := f.fail
			if r.IntN(4) == 0 {
				fail = f.lose
			}
			var name string
			w.st.Sched.At(w.st.At(at), func(ctx context.Context) error {
				n, err := w.loadPod(ctx, which)
				if name = n; err != nil || n == "" {
					return err
				}
				return fail(ctx, ns, name)
			})
			w.st.Sched.At(w.st.At(at+l.RecoverAfter.Duration), func(ctx context.Context) error {
				if name == "" {
					return nil
				}
				return f.recover(ctx, ns, name)
			})
			at += l.RecoverAfter.Duration
		}
	}
}

// loadPod is the pod a load failure hits: the role's pod at which.Pod's
// place, or, while fewer pods run (in real time an operator may still be
// creating them when failures begin; in virtual time every cluster is up
// by then), the one at that place counted round the pods there; "" when
// there is none yet, and the failure is left out.
func (w *world) loadPod(ctx context.Context, which PodRef) (string, error) {
	_, name, err := w.pod(ctx, which)
	if !errors.Is(err, errNoPod) {
		return name, err
	}
	names, err := w.podNames(ctx, which)
	if err != nil || len(names) == 0 {
		return "", err
	}
	return names[which.Pod%len(names)], nil
}
