package apitest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/reference/stackable"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/sim/workload"
)

// The operator as an actor of the simulator, beside the simulated
// workload controllers and kubelet (sim/workload), woken through Map by
// its cluster, workloads and pods: the cluster gets ready (each pod 30s
// after it starts), a pod's node is lost at +2m and the pod recovers at
// +3m, the cluster is stopped at +5m. Its status follows the
// table at each instant's quiescence.
func TestOperatorAsSimulatorActor(t *testing.T) {
	h := start(t, "stackable-actor")
	ctx := context.Background()
	tl := &timeline.Timeline{}
	s := sim.NewScheduler(sim.NewClock(), tl)
	op, err := stackable.New(s.Client(api.Client, "operator", "operator"), s.Clock(), stackable.Options{Namespaces: []string{h.ns}})
	if err != nil {
		t.Fatal(err)
	}
	actor := sim.Actor{Name: "operator", Role: "operator", Reconciler: op, Initial: op.Initial(),
		Watches: []sim.Watch{{GVK: stackable.SampleClusterGVK, Map: op.Map}, {GVK: corev1.SchemeGroupVersion.WithKind("Pod"), Map: op.Map}}}
	for _, k := range []string{"StatefulSet", "Deployment", "DaemonSet"} {
		actor.Watches = append(actor.Watches, sim.Watch{GVK: appsv1.SchemeGroupVersion.WithKind(k), Map: op.Map})
	}
	w := workload.New(workload.Options{Scheduler: s, API: api.Client, Namespaces: []string{h.ns}, Nodes: []string{"node-0", "node-1"}})
	for _, a := range []sim.Actor{actor, w.Actor()} {
		if err := s.Start(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	user := s.Client(api.Client, "scenario", "scenario")
	s.At(timeline.Epoch, func(ctx context.Context) error {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"roles": []any{server, web, agent}}}}
		u.SetGroupVersionKind(stackable.SampleClusterGVK)
		u.SetNamespace(h.ns)
		u.SetName("c")
		return user.Create(ctx, u)
	})
	s.At(timeline.Epoch.Add(2*time.Minute), func(ctx context.Context) error { return w.LosePod(ctx, h.ns, "c-server-1") })
	s.At(timeline.Epoch.Add(3*time.Minute), func(ctx context.Context) error { return w.RecoverPod(ctx, h.ns, "c-server-1") })
	s.At(timeline.Epoch.Add(5*time.Minute), func(ctx context.Context) error {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(stackable.SampleClusterGVK)
		if err := user.Get(ctx, client.ObjectKey{Namespace: h.ns, Name: "c"}, u); err != nil {
			return err
		}
		u.SetAnnotations(map[string]string{stackable.AnnotationCommand: stackable.CommandStopped})
		return user.Update(ctx, u)
	})
	if err := s.Run(ctx, timeline.Epoch.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}

	// The conditions at the end of each instant the operator wrote them.
	cur := map[string]string{}
	last := map[time.Duration]string{}
	var instants []time.Duration
	for _, e := range tl.Events() {
		if e.Actor != "operator" || e.Verb != "update-status" {
			continue
		}
		for _, c := range e.Conditions {
			cur[c.Type] = ""
			if c.After != nil {
				cur[c.Type] = c.After.Status
			}
		}
		at := e.Time.Sub(timeline.Epoch)
		if _, ok := last[at]; !ok {
			instants = append(instants, at)
		}
		last[at] = ""
		for _, typ := range []string{stackable.TypeAvailable, stackable.TypeProgressing, stackable.TypeDegraded, stackable.TypeStopped} {
			last[at] += fmt.Sprintf(" %s=%s", typ, cur[typ])
		}
	}
	var got []string
	for _, at := range instants {
		got = append(got, fmt.Sprintf("+%s%s", at, last[at]))
	}
	want := []string{
		"+0s Available=False Progressing=True Degraded=False Stopped=False",
		"+1m30s Available=True Progressing=False Degraded=False Stopped=False", // the StatefulSet starts its pods one after another
		"+2m0s Available=Unknown Progressing=True Degraded=True Stopped=False",
		"+3m0s Available=False Progressing=True Degraded=False Stopped=False",
		"+3m30s Available=True Progressing=False Degraded=False Stopped=False",
		"+5m0s Available=False Progressing=False Degraded=False Stopped=True",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the operator's status at each instant it wrote:\n%q\nwant:\n%q", got, want)
	}
	var writes []string
	for _, e := range tl.Events() {
		if e.Actor == "operator" && e.IsWrite() && e.Verb != "update-status" {
			writes = append(writes, fmt.Sprintf("+%s %s %s/%s", e.Time.Sub(timeline.Epoch), e.Verb, e.Object.Kind, e.Object.Name))
		}
	}
	wantWrites := []string{
		"+0s create StatefulSet/c-server", "+0s create Deployment/c-web", "+0s create DaemonSet/c-agent",
		"+5m0s update StatefulSet/c-server", "+5m0s update Deployment/c-web", "+5m0s delete DaemonSet/c-agent",
	}
	if !slices.Equal(writes, wantWrites) {
		t.Errorf("the operator's workload writes:\n%q\nwant (one each, no churn):\n%q", writes, wantWrites)
	}
}
