package apitest

import (
	"errors"
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/reference/stackable"
	"github.com/opcert/opcert/sim/timeline"
)

// The operator creates one workload per role, owned by the cluster and
// labelled for it, and publishes the table's conditions, all stamped with the
// write's time (004 §Implementation details, decision 004,
// conformance/stackable/README.md).
func TestCreatesOwnedWorkloads(t *testing.T) {
	h := start(t, "stackable-create")
	h.cluster("c", map[string]any{"roles": []any{server, web, agent}}, nil)
	op := h.operator(stackable.Options{})
	h.mustReconcile(op, "c")

	uid := h.get("c").GetUID()
	sts, dep, ds := h.statefulSet("c-server"), h.deployment("c-web"), h.daemonSet("c-agent")
	if sts == nil || dep == nil || ds == nil {
		t.Fatalf("workloads: %v %v %v", sts, dep, ds)
	}
	for _, tc := range []struct {
		obj      client.Object
		role     string
		selector *metav1.LabelSelector
		template map[string]string
	}{
		{sts, "server", sts.Spec.Selector, sts.Spec.Template.Labels},
		{dep, "web", dep.Spec.Selector, dep.Spec.Template.Labels},
		{ds, "agent", ds.Spec.Selector, ds.Spec.Template.Labels},
	} {
		want := map[string]string{stackable.LabelInstance: "c", stackable.LabelComponent: tc.role}
		ref := metav1.GetControllerOf(tc.obj)
		if ref == nil || ref.UID != uid || ref.Kind != "SampleCluster" || ref.Name != "c" {
			t.Errorf("%s: controller %+v, want SampleCluster c (%s)", tc.obj.GetName(), ref, uid)
		}
		if !maps.Equal(tc.obj.GetLabels(), want) || !maps.Equal(tc.selector.MatchLabels, want) || !maps.Equal(tc.template, want) {
			t.Errorf("%s: labels %v, selector %v, template %v, want %v", tc.obj.GetName(), tc.obj.GetLabels(), tc.selector, tc.template, want)
		}
	}
	if *sts.Spec.Replicas != 3 || *dep.Spec.Replicas != 2 {
		t.Errorf("replicas %d and %d, want the roles' 3 and 2", *sts.Spec.Replicas, *dep.Spec.Replicas)
	}

	conds, _ := h.conditions("c")
	epoch := metav1.NewTime(timeline.Epoch)
	defer func() {
		// A role removed from the spec: its workload is deleted.
		h.edit("c", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{server, agent}, "spec", "roles")
		})
		h.mustReconcile(op, "c")
		if h.deployment("c-web") != nil || h.statefulSet("c-server") == nil || h.daemonSet("c-agent") == nil {
			t.Error("a removed role's workload was kept, or another one deleted")
		}
	}()
	for typ, status := range map[string]metav1.ConditionStatus{
		stackable.TypeAvailable: metav1.ConditionFalse, stackable.TypeProgressing: metav1.ConditionTrue,
		stackable.TypeDegraded: metav1.ConditionFalse, stackable.TypePaused: metav1.ConditionFalse, stackable.TypeStopped: metav1.ConditionFalse,
	} {
		c := conds[typ]
		if c.Status != status || !c.LastProbeTime.Equal(&epoch) || !c.LastTransitionTime.Equal(&epoch) {
			t.Errorf("%s: %+v, want %s probed and moved at the start", typ, c, status)
		}
	}
}

// Each row of 004 §Implementation details as the workload's status and
// pods move; lastTransitionTime moves only with a status, and nothing is
// written when nothing changed.
func TestPublishesEachRow(t *testing.T) {
	h := start(t, "stackable-rows")
	h.cluster("c", map[string]any{"roles": []any{server}}, nil)
	op := h.operator(stackable.Options{})
	h.mustReconcile(op, "c")
	type row struct {
		status  metav1.ConditionStatus
		message string
	}
	const desired = "The cluster has the desired amount of replicas."
	for i, step := range []struct {
		name                             string
		avail                            int32
		pods                             map[string]corev1.PodPhase
		available, progressing, degraded row
	}{
		{"all replicas available", 3, map[string]corev1.PodPhase{"c-server-0": corev1.PodRunning, "c-server-1": corev1.PodRunning, "c-server-2": corev1.PodRunning},
			row{metav1.ConditionTrue, desired}, row{metav1.ConditionFalse, desired}, row{metav1.ConditionFalse, desired}},
		{"a pod lost: Available Unknown, Degraded True", 2, map[string]corev1.PodPhase{"c-server-1": corev1.PodUnknown},
			row{metav1.ConditionUnknown, "The cluster has not the desired amount of replicas. At least one Pod [c-server-1] has phase Unknown."},
			row{metav1.ConditionTrue, "The cluster does not have the desired amount of replicas. No Pod has phase Unknown."},
			row{metav1.ConditionTrue, "The cluster has less than the desired amount of replicas. At least one Pod [c-server-1] has Phase [Unknown]."}},
		{"the pod failed: Available False, Progressing False", 2, map[string]corev1.PodPhase{"c-server-1": corev1.PodFailed},
			row{metav1.ConditionFalse, "The cluster does not have the desired amount of replicas."},
			row{metav1.ConditionFalse, "The cluster does not have the desired amount of replicas. At least one Pod [c-server-1] has Phase Failed."},
			row{metav1.ConditionTrue, "The cluster has less than the desired amount of replicas. At least one Pod [c-server-1] has Phase [Failed]."}},
		{"replaced and running again", 3, map[string]corev1.PodPhase{"c-server-1": corev1.PodRunning},
			row{metav1.ConditionTrue, desired}, row{metav1.ConditionFalse, desired}, row{metav1.ConditionFalse, desired}},
	} {
		now := time.Duration(i+1) * time.Minute
		h.after(now)
		before, _ := h.conditions("c")
		h.available("c-server", step.avail)
		for name, phase := range step.pods {
			h.pod("c", "server", name, phase)
		}
		h.mustReconcile(op, "c")
		conds, rv := h.conditions("c")
		at := metav1.NewTime(timeline.Epoch.Add(now))
		for typ, want := range map[string]row{stackable.TypeAvailable: step.available, stackable.TypeProgressing: step.progressing, stackable.TypeDegraded: step.degraded} {
			c := conds[typ]
			if c.Status != want.status || c.Message != want.message {
				t.Errorf("%s: %s %s %q, want %s %q", step.name, typ, c.Status, c.Message, want.status, want.message)
			}
			moved := before[typ].Status != c.Status
			if moved != c.LastTransitionTime.Equal(&at) || !c.LastProbeTime.Equal(&at) {
				t.Errorf("%s: %s transition %v probe %v (status moved: %v), at %v", step.name, typ, c.LastTransitionTime, c.LastProbeTime, moved, at)
			}
		}
		h.after(now + time.Second)
		h.mustReconcile(op, "c")
		if _, again := h.conditions("c"); again != rv {
			t.Errorf("%s: a reconcile with nothing changed wrote the status", step.name)
		}
	}
}

// 004 §Implementation details, Paused True: the operator writes no
// workload, yet publishes what it observes; the writes-while-paused flaw
// does.
func TestPaused(t *testing.T) {
	for _, tc := range []struct {
		flaw   stackable.Flaw
		writes bool
	}{{"", false}, {stackable.WritesWhilePaused, true}} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			h := start(t, "stackable-paused"+string(tc.flaw))
			h.cluster("c", map[string]any{"roles": []any{server, web}}, nil)
			op := h.operator(stackable.Options{Flaw: tc.flaw})
			h.mustReconcile(op, "c")
			h.command("c", stackable.CommandPaused)
			h.edit("c", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "server", "kind": "StatefulSet", "replicas": int64(5)}, web}, "spec", "roles")
			})
			if err := api.Client.Delete(h.ctx, h.deployment("c-web")); err != nil {
				t.Fatal(err)
			}
			rv := h.statefulSet("c-server").ResourceVersion
			h.after(time.Minute)
			h.mustReconcile(op, "c")
			sts, dep := h.statefulSet("c-server"), h.deployment("c-web")
			wrote := sts.ResourceVersion != rv || dep != nil
			if wrote != tc.writes {
				t.Errorf("workloads written while paused: %v (replicas %d, Deployment recreated %v), want %v", wrote, *sts.Spec.Replicas, dep != nil, tc.writes)
			}
			conds, _ := h.conditions("c")
			if p := conds[stackable.TypePaused]; p.Status != metav1.ConditionTrue || p.Reason != stackable.ReasonPaused {
				t.Errorf("Paused %+v, want True", p)
			}

			h.command("c", "")
			h.mustReconcile(op, "c")
			if s, d := h.statefulSet("c-server"), h.deployment("c-web"); *s.Spec.Replicas != 5 || d == nil {
				t.Errorf("after the pause: replicas %d, Deployment %v; want 5 and recreated", *s.Spec.Replicas, d != nil)
			}
		})
	}
}

// 004 §Implementation details, Stopped True, and decision 004,
// conformance/stackable/README.md: replicas 0 (DaemonSets deleted) and
// Available False; the stop-keeps-replicas flaw leaves them.
func TestStopped(t *testing.T) {
	for _, tc := range []struct {
		flaw   stackable.Flaw
		scaled bool
	}{{"", true}, {stackable.StopKeepsReplicas, false}} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			h := start(t, "stackable-stopped"+string(tc.flaw))
			h.cluster("c", map[string]any{"roles": []any{server, web, agent}}, nil)
			op := h.operator(stackable.Options{Flaw: tc.flaw})
			h.mustReconcile(op, "c")
			h.available("c-server", 3)
			h.command("c", stackable.CommandStopped)
			h.after(time.Minute)
			h.mustReconcile(op, "c")
			sts, dep, ds := h.statefulSet("c-server"), h.deployment("c-web"), h.daemonSet("c-agent")
			scaled := *sts.Spec.Replicas == 0 && *dep.Spec.Replicas == 0 && ds == nil
			kept := *sts.Spec.Replicas == 3 && *dep.Spec.Replicas == 2 && ds != nil
			if scaled != tc.scaled || kept == tc.scaled {
				t.Errorf("stopped: replicas %d and %d, DaemonSet %v; want scaled to 0: %v", *sts.Spec.Replicas, *dep.Spec.Replicas, ds != nil, tc.scaled)
			}
			conds, _ := h.conditions("c")
			if a := conds[stackable.TypeAvailable]; a.Status != metav1.ConditionFalse || a.Message != "No Pods running." {
				t.Errorf("Available %+v, want False, No Pods running.", a)
			}
			if s := conds[stackable.TypeStopped]; s.Status != metav1.ConditionTrue {
				t.Errorf("Stopped %+v, want True", s)
			}

			h.command("c", "")
			h.mustReconcile(op, "c")
			if s, ds := h.statefulSet("c-server"), h.daemonSet("c-agent"); *s.Spec.Replicas != 3 || ds == nil {
				t.Errorf("started again: replicas %d, DaemonSet %v; want 3 and there", *s.Spec.Replicas, ds != nil)
			}
		})
	}
}

// 004 §Implementation details' precondition "Reconcile without errors": a
// broken spec fails the reconcile and the reference writes no status (its
// choice: decision 004, conformance/stackable/README.md lets an operator
// report the error), until it is fixed.
func TestBroken(t *testing.T) {
	for _, tc := range []struct {
		flaw   stackable.Flaw
		writes bool
	}{{"", false}} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			h := start(t, "stackable-broken"+string(tc.flaw))
			h.cluster("c", map[string]any{"roles": []any{server}}, nil)
			op := h.operator(stackable.Options{Flaw: tc.flaw})
			h.mustReconcile(op, "c")
			h.edit("c", func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "product version 9 does not exist", "spec", "broken")
			})
			h.available("c-server", 3)
			_, rv := h.conditions("c")
			h.after(time.Minute)
			if err := h.reconcile(op, "c"); !errors.Is(err, stackable.ErrBroken) {
				t.Errorf("reconcile of a broken spec: %v, want ErrBroken", err)
			}
			if conds, again := h.conditions("c"); (again != rv) != tc.writes {
				t.Errorf("status written on error: %v, want %v (Available %+v)", again != rv, tc.writes, conds[stackable.TypeAvailable])
			}

			h.edit("c", func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, "spec", "broken") })
			h.mustReconcile(op, "c")
			if conds, _ := h.conditions("c"); conds[stackable.TypeAvailable].Status != metav1.ConditionTrue {
				t.Errorf("fixed: Available %+v, want True", conds[stackable.TypeAvailable])
			}
		})
	}
}

// The late flaw writes one change behind.
func TestLate(t *testing.T) {
	h := start(t, "stackable-late")
	h.cluster("c", map[string]any{"roles": []any{server}}, nil)
	op := h.operator(stackable.Options{Flaw: stackable.Late})
	h.mustReconcile(op, "c")
	if conds, _ := h.conditions("c"); len(conds) != 0 {
		t.Fatalf("first reconcile wrote %+v", conds)
	}
	h.available("c-server", 3)
	h.mustReconcile(op, "c")
	if conds, _ := h.conditions("c"); conds[stackable.TypeAvailable].Status != metav1.ConditionFalse {
		t.Errorf("second reconcile: Available %+v, want the first's False", conds[stackable.TypeAvailable])
	}
	h.mustReconcile(op, "c")
	if conds, _ := h.conditions("c"); conds[stackable.TypeAvailable].Status != metav1.ConditionTrue {
		t.Errorf("third reconcile: Available %+v, want True", conds[stackable.TypeAvailable])
	}
}

// The operator-rs profile (docs/upstream.md, seed 004): spec.clusterOperation
// pauses and stops, Available from the counts only, no lastProbeTime, no
// Degraded or Progressing.
func TestOperatorRS(t *testing.T) {
	h := start(t, "stackable-operator-rs")
	h.cluster("c", map[string]any{"roles": []any{server}}, map[string]string{stackable.AnnotationCommand: stackable.CommandStopped})
	op := h.operator(stackable.Options{Profile: stackable.ProfileOperatorRS})
	h.mustReconcile(op, "c")
	if s := h.statefulSet("c-server"); *s.Spec.Replicas != 3 {
		t.Errorf("the annotation stopped the operator-rs profile: replicas %d", *s.Spec.Replicas)
	}
	h.available("c-server", 2)
	h.pod("c", "server", "c-server-2", corev1.PodUnknown)
	h.mustReconcile(op, "c")
	conds, _ := h.conditions("c")
	if len(conds) != 3 || conds[stackable.TypeAvailable].Status != metav1.ConditionFalse ||
		conds[stackable.TypeAvailable].Message != `StatefulSet ["c-server"] missing ready replicas.` {
		t.Errorf("conditions %+v, want Available False from the counts, ReconciliationPaused and Stopped", conds)
	}
	for typ, c := range conds {
		if !c.LastProbeTime.IsZero() || c.Reason != "" {
			t.Errorf("%s carries a probe time or a reason: %+v", typ, c)
		}
	}

	h.edit("c", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "spec", "clusterOperation", "stopped")
	})
	h.mustReconcile(op, "c")
	if s := h.statefulSet("c-server"); *s.Spec.Replicas != 0 {
		t.Errorf("clusterOperation.stopped: replicas %d, want 0", *s.Spec.Replicas)
	}
	h.edit("c", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, true, "spec", "clusterOperation", "reconciliationPaused")
		_ = unstructured.SetNestedField(u.Object, false, "spec", "clusterOperation", "stopped")
	})
	rv := h.statefulSet("c-server").ResourceVersion
	h.mustReconcile(op, "c")
	conds, _ = h.conditions("c")
	if h.statefulSet("c-server").ResourceVersion != rv || conds[stackable.TypeReconciliationPaused].Status != metav1.ConditionTrue {
		t.Errorf("reconciliationPaused: the StatefulSet was written, or ReconciliationPaused %+v", conds[stackable.TypeReconciliationPaused])
	}
}

// A request without a name reconciles every SampleCluster of its
// namespace, as Initial asks at start; Map leads workloads and pods to
// their cluster.
func TestInitialAndMap(t *testing.T) {
	h := start(t, "stackable-initial")
	h.cluster("a", map[string]any{"roles": []any{web}}, nil)
	h.cluster("b", map[string]any{"roles": []any{server}}, nil)
	op := h.operator(stackable.Options{})
	for _, req := range op.Initial() {
		if _, err := op.Reconcile(h.ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	dep, sts := h.deployment("a-web"), h.statefulSet("b-server")
	if dep == nil || sts == nil {
		t.Fatalf("initial requests did not reconcile both clusters: %v %v", dep, sts)
	}
	h.pod("b", "server", "b-server-0", corev1.PodRunning)
	pod := &corev1.Pod{}
	if err := api.Client.Get(h.ctx, client.ObjectKey{Namespace: h.ns, Name: "b-server-0"}, pod); err != nil {
		t.Fatal(err)
	}
	other := pod.DeepCopy()
	other.Namespace = "elsewhere"
	for _, tc := range []struct {
		obj  client.Object
		want []reconcile.Request
	}{
		{dep, []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: h.ns, Name: "a"}}}},
		{sts, []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: h.ns, Name: "b"}}}},
		{pod, []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: h.ns, Name: "b"}}}},
		{h.get("a"), []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: h.ns, Name: "a"}}}},
		{other, nil},
	} {
		if got := op.Map(h.ctx, tc.obj); len(got) != len(tc.want) || len(got) == 1 && got[0] != tc.want[0] {
			t.Errorf("Map(%s/%s) = %v, want %v", tc.obj.GetNamespace(), tc.obj.GetName(), got, tc.want)
		}
	}
}
