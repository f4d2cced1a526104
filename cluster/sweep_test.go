package cluster

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// goneProcess is the ID of a process of this machine that has exited.
func goneProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// A sweep deletes what dead runs left, by their records and labels, and
// nothing of a run that may still be running, nor anything labelled that
// is not named as a run's.
func TestSweepDeletesWhatDeadRunsLeft(t *testing.T) {
	now := time.Now()
	self := Self()
	coKind := configv1.GroupVersion.WithKind("ClusterOperator").GroupKind()
	other := Owner{Host: "elsewhere", PID: 1}
	runs := []struct {
		id    string
		owner Owner
		// deadline from now
		deadline time.Duration
		replicas map[string]int32
		swept    bool
	}{
		{"dead0001", Owner{Host: self.Host, PID: goneProcess(t)}, time.Hour, nil, true}, // its process is gone
		{"live0002", self, -time.Hour, nil, false},                                      // this very process: alive, deadline or not
		{"late0003", other, -time.Minute, nil, true},                                    // another machine, past its deadline
		{"busy0004", other, time.Minute, nil, false},                                    // another machine, before it
		{"kept0005", other, -time.Minute, map[string]int32{"ops/etcd": 1}, true},        // dead, but Deployments to restore
	}
	var objs []client.Object
	for _, r := range runs {
		rec := Record{ID: r.id, Started: now.Add(-2 * time.Hour), Deadline: now.Add(r.deadline), Owner: r.owner,
			Kinds: []schema.GroupKind{coKind}, Replicas: r.replicas}
		ns, err := rec.Namespace()
		if err != nil {
			t.Fatal(err)
		}
		ns.Labels = map[string]string{RunLabel: r.id}
		objs = append(objs, ns,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace(r.id) + "-01-default", Labels: map[string]string{RunLabel: r.id}}},
			&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace(r.id) + "-01-etcd", Labels: map[string]string{RunLabel: r.id}}})
	}
	// A run whose record is gone (killed during its cleanup), and objects
	// someone labelled as a dead run's but not named as its.
	objs = append(objs,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace("norec006") + "-01-default", Labels: map[string]string{RunLabel: "norec006"}}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "production", Labels: map[string]string{RunLabel: "dead0001"}}},
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "etcd", Labels: map[string]string{RunLabel: "dead0001"}}})
	rm := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion, configv1.GroupVersion})
	rm.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	rm.Add(configv1.GroupVersion.WithKind("ClusterOperator"), meta.RESTScopeRoot)
	c := fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(rm).WithObjects(objs...).Build()

	lines, err := Sweep(context.Background(), c, self, now)
	if err != nil {
		t.Fatal(err)
	}
	said := strings.Join(lines, "\n")
	for _, want := range []string{
		"swept run dead0001 (its opcert, process ",
		"ClusterOperator.config.openshift.io opcert-dead0001-01-etcd, Namespace opcert-dead0001-01-default, Namespace opcert-dead0001",
		`swept run late0003 (it ran on "elsewhere" and its deadline`,
		"swept run norec006 (its record is gone",
		"run kept0005: namespace opcert-kept0005 kept: the run may have scaled Deployments: scale them back by hand (ops/etcd to 1)",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("the sweep does not say %q:\n%s", want, said)
		}
	}
	var nss corev1.NamespaceList
	var cos configv1.ClusterOperatorList
	if err := c.List(context.Background(), &nss); err != nil {
		t.Fatal(err)
	}
	if err := c.List(context.Background(), &cos); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, ns := range nss.Items {
		left = append(left, "ns "+ns.Name)
	}
	for _, co := range cos.Items {
		left = append(left, "co "+co.Name)
	}
	slices.Sort(left)
	want := []string{"co etcd", "co opcert-busy0004-01-etcd", "co opcert-live0002-01-etcd",
		"ns opcert-busy0004", "ns opcert-busy0004-01-default", "ns opcert-kept0005", "ns opcert-live0002", "ns opcert-live0002-01-default", "ns production"}
	if !slices.Equal(left, want) {
		t.Errorf("after the sweep:\n  %v\nwant\n  %v", left, want)
	}
}

// A run that cannot delete everything it created keeps its record, for
// the next run's sweep, and says so.
func TestCleanupKeepsTheRecordOfWhatIsLeft(t *testing.T) {
	rm := meta.NewDefaultRESTMapper(nil)
	rm.Add(corev1.SchemeGroupVersion.WithKind("Namespace"), meta.RESTScopeRoot)
	rm.Add(configv1.GroupVersion.WithKind("ClusterOperator"), meta.RESTScopeRoot)
	base := fake.NewClientBuilder().WithScheme(Scheme()).WithRESTMapper(rm).Build()
	stuck := interceptor.NewClient(base, interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
		if _, ok := obj.(*unstructured.Unstructured); ok && obj.GetObjectKind().GroupVersionKind().Kind == "ClusterOperator" {
			return errors.New("the API server is away")
		}
		return c.Delete(ctx, obj, opts...)
	}})
	g := NewGuard(stuck, "abc", RunNamespace("abc"), nil, KindPolicy{Declared: []schema.GroupKind{configv1.GroupVersion.WithKind("ClusterOperator").GroupKind()}})
	ctx := context.Background()
	for _, obj := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace("abc")}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace("abc") + "-01-default"}},
		&configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: RunNamespace("abc") + "-01-etcd"}},
	} {
		if err := g.Create(ctx, obj); err != nil {
			t.Fatal(err)
		}
	}
	deleted, left := g.Cleanup(time.Second)
	said := strings.Join(left, "\n")
	if deleted != 1 || !strings.Contains(said, "ClusterOperator.config.openshift.io opcert-abc-01-etcd (label opcert.io/run=abc): not deleted: the API server is away") ||
		!strings.Contains(said, "Namespace opcert-abc (label opcert.io/run=abc): kept, the record of what is left") {
		t.Errorf("cleanup deleted %d, left:\n%s", deleted, said)
	}
	if err := base.Get(ctx, client.ObjectKey{Name: RunNamespace("abc")}, &corev1.Namespace{}); err != nil {
		t.Errorf("the run's record: %v, want it kept", err)
	}
}
