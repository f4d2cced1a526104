package record

import (
	"context"
	"strconv"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// With two kinds watched side by side, the writes come out in the order
// the API server made them (their resourceVersions), whichever watch
// delivered first.
func TestKindsMergeByResourceVersion(t *testing.T) {
	needAPI(t)
	rec := startRecorderOf(t, &Recording{Kinds: []schema.GroupVersionKind{coGVK, corev1.SchemeGroupVersion.WithKind("ConfigMap")}})
	ctx := context.Background()
	rvOf := map[string]uint64{}
	const writes = 30
	for i := range writes {
		name := unique("merge")
		var obj client.Object = &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if i%2 == 1 {
			// With data: the writer of an empty ConfigMap owns no field, and
			// managedFields names no one.
			obj = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Data: map[string]string{"k": "v"}}
		}
		if err := api.Client.Create(ctx, obj, client.FieldOwner("writer")); err != nil {
			t.Fatal(err)
		}
		rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		rvOf[name] = rv
	}
	var got []timeline.Event
	for len(got) < writes {
		e := rec.next(t, "")
		if _, ours := rvOf[e.Object.Name]; ours {
			got = append(got, e)
		}
	}
	kinds := map[string]bool{}
	for i, e := range got {
		kinds[e.Object.Kind] = true
		if e.Verb != timeline.VerbCreate || e.Actor != "writer" {
			t.Errorf("event %d: %s by %s", i, e.Verb, e.Actor)
		}
		if i > 0 && rvOf[e.Object.Name] < rvOf[got[i-1].Object.Name] {
			t.Errorf("event %d (%s, resourceVersion %d) after %s (%d): not in the server's order",
				i, e.Object, rvOf[e.Object.Name], got[i-1].Object, rvOf[got[i-1].Object.Name])
		}
		if i > 0 && e.Time.Before(got[i-1].Time) {
			t.Errorf("event %d goes back in time", i)
		}
	}
	if len(kinds) != 2 {
		t.Errorf("kinds %v, want both", kinds)
	}
	rec.stop()
}
