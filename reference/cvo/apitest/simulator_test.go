package apitest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/cvo"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// The adapter as an actor of the simulator (sim/doc.go): on the
// recording client, under the ClusterVersion's own name "version" (the run
// prefix keeps it apart from other runs'), woken by every ClusterOperator
// write and by its own requeue; the component's operator reports at +10m
// and the installation completes then, every write on the timeline.
func TestAsSimulatorActor(t *testing.T) {
	if api == nil {
		t.Skip("needs the API server")
	}
	ctx := context.Background()
	tl := &timeline.Timeline{}
	s := sim.NewScheduler(sim.NewClock(), tl)
	s.Prefix = "simrun-"
	op, err := cvo.New(s.Client(api.Client, "version-operator", "version-operator"), s.Clock(),
		cvo.DefaultParams(), "4.0.0", release(t, "good", "actor", "4.0.0", nil))
	if err != nil {
		t.Fatal(err)
	}
	version := reconcile.Request{NamespacedName: client.ObjectKey{Name: cvo.ClusterVersionName}}
	toVersion := func(context.Context, client.Object) []reconcile.Request { return []reconcile.Request{version} }
	if err := s.Start(ctx, sim.Actor{Name: "version-operator", Role: "version-operator", Reconciler: op,
		Watches: []sim.Watch{{GVK: configv1.GroupVersion.WithKind("ClusterOperator"), Map: toVersion}},
		Initial: []reconcile.Request{version}}); err != nil {
		t.Fatal(err)
	}
	component := s.Client(api.Client, "component", "operator")
	s.At(timeline.Epoch.Add(10*time.Minute), func(ctx context.Context) error {
		co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "actor-example"}}
		if err := component.Create(ctx, co); err != nil {
			return err
		}
		co.Status.Versions = operatorAt("4.0.0")
		for _, c := range healthy() {
			c.LastTransitionTime = metav1.NewTime(s.Now())
			co.Status.Conditions = append(co.Status.Conditions, c)
		}
		return component.Status().Update(ctx, co)
	})
	if err := s.Run(ctx, timeline.Epoch.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	var got []string
	for _, e := range tl.Events() {
		if e.Actor == "version-operator" && e.IsWrite() {
			got = append(got, fmt.Sprintf("+%s %s %s %s", e.Time.Sub(timeline.Epoch), e.Verb, e.Object.Kind, e.Object.Name))
		}
	}
	want := []string{
		"+0s create Namespace actor-example-operator",
		"+0s create ServiceAccount actor-example-operator",
		"+0s create ClusterRoleBinding actor-example-operator",
		"+0s create Deployment actor-example-operator",
		"+0s create ConfigMap actor-example-operator-config",
		"+0s create ClusterVersion version",
		"+0s update-status ClusterVersion version",
		"+10m0s update-status ClusterVersion version",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the version operator's writes:\n%q\nwant:\n%q", got, want)
	}
	cv := &configv1.ClusterVersion{}
	if err := component.Get(ctx, client.ObjectKey{Name: cvo.ClusterVersionName}, cv); err != nil {
		t.Fatal(err)
	}
	if p := find(cv.Status.Conditions, progressing); p == nil || p.Message != "Cluster version is 4.0.0" ||
		!p.LastTransitionTime.Equal(at(10*time.Minute)) {
		t.Errorf("Progressing %+v, want False \"Cluster version is 4.0.0\" since +10m", p)
	}
}
