package workload_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/sim/workload"
)

// api is the one API server this package's integration tests share, as
// one `opcert run` does.
var api *apiserver.Server

var runs atomic.Int64

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }

// ns is the namespace every test's workloads live in (the run prefix
// keeps the tests' namespaces apart on the server).
const ns = "operand"

var threeNodes = []string{"master-0", "master-1", "master-2"}

// run is one simulated run: a scheduler on its own prefix, the workload
// controller acting in ns over nodes, and the scenario's client.
type run struct {
	t        *testing.T
	ctx      context.Context
	s        *sim.Scheduler
	tl       *timeline.Timeline
	wc       *workload.Controller
	scenario *sim.Client
}

func start(t *testing.T, nodes []string) *run {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
	r := &run{t: t, ctx: context.Background(), tl: &timeline.Timeline{}}
	r.s = sim.NewScheduler(sim.NewClock(), r.tl)
	r.s.Prefix = fmt.Sprintf("w%03d-", runs.Add(1))
	for gvk, paths := range map[string][]string{
		"Pod":         {"metadata.labels", "spec.nodeName", "status.phase"},
		"Deployment":  {"spec.template.metadata.labels", "spec.replicas", "status"},
		"DaemonSet":   {"spec.template.metadata.labels", "status"},
		"StatefulSet": {"spec.template.metadata.labels", "spec.replicas", "status"},
	} {
		g := appsv1.SchemeGroupVersion.WithKind(gvk)
		if gvk == "Pod" {
			g = corev1.SchemeGroupVersion.WithKind(gvk)
		}
		if err := r.s.RecordFields(g, paths...); err != nil {
			t.Fatal(err)
		}
	}
	r.scenario = r.s.Client(api.Client, timeline.RoleScenario, timeline.RoleScenario)
	if err := r.scenario.Create(r.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	r.wc = workload.New(workload.Options{Scheduler: r.s, API: api.Client, Namespaces: []string{ns}, Nodes: nodes})
	if err := r.s.Start(r.ctx, r.wc.Actor()); err != nil {
		t.Fatal(err)
	}
	return r
}

// to runs the scheduler to d after the epoch.
func (r *run) to(d time.Duration) {
	r.t.Helper()
	if err := r.s.Run(r.ctx, timeline.Epoch.Add(d)); err != nil {
		r.t.Fatalf("run to +%s: %v", d, err)
	}
}

// at queues a scenario step at d after the epoch.
func (r *run) at(d time.Duration, step func(ctx context.Context) error) {
	r.s.At(timeline.Epoch.Add(d), step)
}

// template is an operand's pod template at version.
func template(name, version string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, workload.LabelVersion: version}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "example.com/" + name + ":" + version}}},
	}
}

func deployment(name, version string, replicas int32) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name, version)},
	}
}

func daemonSet(name, version string) *appsv1.DaemonSet {
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name, version)},
	}
}

func statefulSet(name, version string, replicas int32) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name, version)},
	}
}

// create is a step that creates obj.
func (r *run) create(obj client.Object) func(context.Context) error {
	return func(ctx context.Context) error { return r.scenario.Create(ctx, obj) }
}

// retemplate is a step that sets a workload's template to version.
func (r *run) retemplate(obj client.Object, version string) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := r.scenario.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		t := template(obj.GetName(), version)
		switch w := obj.(type) {
		case *appsv1.Deployment:
			w.Spec.Template = t
		case *appsv1.DaemonSet:
			w.Spec.Template = t
		case *appsv1.StatefulSet:
			w.Spec.Template = t
		}
		return r.scenario.Update(ctx, obj)
	}
}

// scale is a step that sets a Deployment's or StatefulSet's replicas.
func (r *run) scale(obj client.Object, replicas int32) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := r.scenario.Get(ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		switch w := obj.(type) {
		case *appsv1.Deployment:
			w.Spec.Replicas = &replicas
		case *appsv1.StatefulSet:
			w.Spec.Replicas = &replicas
		}
		return r.scenario.Update(ctx, obj)
	}
}

// pods lists the pods of a workload as "name node version phase ready",
// sorted by name.
func (r *run) pods(workloadName string) []string {
	r.t.Helper()
	list := &corev1.PodList{}
	if err := r.scenario.List(r.ctx, list, client.InNamespace(ns), client.MatchingLabels{workload.LabelWorkload: workloadName}); err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		ready := "-"
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady {
				ready = string(c.Status)
			}
		}
		out = append(out, fmt.Sprintf("%s %s %s %s %s", p.Name, p.Spec.NodeName, p.Labels[workload.LabelVersion], p.Status.Phase, ready))
	}
	slices.Sort(out)
	return out
}

// expectPods checks the pods of a workload, in any order.
func (r *run) expectPods(workloadName string, want ...string) {
	r.t.Helper()
	got := r.pods(workloadName)
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		r.t.Errorf("+%s: pods of %s:\n  %s\nwant:\n  %s", r.since(), workloadName, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// dpod names a Deployment's i-th pod of version's template.
func dpod(name, version string, i int) string {
	return fmt.Sprintf("%s-%s-%d", name, workload.TemplateHash(template(name, version)), i)
}

func (r *run) since() time.Duration { return r.s.Now().Sub(timeline.Epoch) }

// status is a workload's status as the API server holds it, its counts
// in the order the kind's status type declares them.
func (r *run) status(obj client.Object) string {
	r.t.Helper()
	if err := r.scenario.Get(r.ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
		r.t.Fatal(err)
	}
	switch w := obj.(type) {
	case *appsv1.Deployment:
		s := w.Status
		return fmt.Sprintf("gen=%d replicas=%d updated=%d ready=%d available=%d unavailable=%d",
			s.ObservedGeneration, s.Replicas, s.UpdatedReplicas, s.ReadyReplicas, s.AvailableReplicas, s.UnavailableReplicas)
	case *appsv1.DaemonSet:
		s := w.Status
		return fmt.Sprintf("gen=%d desired=%d current=%d updated=%d ready=%d available=%d unavailable=%d",
			s.ObservedGeneration, s.DesiredNumberScheduled, s.CurrentNumberScheduled, s.UpdatedNumberScheduled, s.NumberReady, s.NumberAvailable, s.NumberUnavailable)
	case *appsv1.StatefulSet:
		s := w.Status
		return fmt.Sprintf("gen=%d replicas=%d ready=%d current=%d updated=%d available=%d",
			s.ObservedGeneration, s.Replicas, s.ReadyReplicas, s.CurrentReplicas, s.UpdatedReplicas, s.AvailableReplicas)
	}
	r.t.Fatalf("not a workload: %T", obj)
	return ""
}

// progress is a Deployment's conditions as "Type=Status/Reason", in
// order.
func (r *run) progress(d *appsv1.Deployment) string {
	r.t.Helper()
	if err := r.scenario.Get(r.ctx, client.ObjectKeyFromObject(d), d); err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, c := range d.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s/%s", c.Type, c.Status, c.Reason))
	}
	return strings.Join(out, " ")
}

func (r *run) expectProgress(d *appsv1.Deployment, want string) {
	r.t.Helper()
	if got := r.progress(d); got != want {
		r.t.Errorf("+%s: Deployment %s conditions\n  %s\nwant\n  %s", r.since(), d.Name, got, want)
	}
}

func (r *run) expectStatus(obj client.Object, want string) {
	r.t.Helper()
	if got := r.status(obj); got != want {
		r.t.Errorf("+%s: %s %s status\n  %s\nwant\n  %s", r.since(), obj.GetObjectKind().GroupVersionKind().Kind, obj.GetName(), got, want)
	}
}

// transcript is the run's timeline, one line per event: time, actor,
// verb, object, and the changes of conditions and registered fields.
func (r *run) transcript() string {
	var b strings.Builder
	for _, e := range r.tl.Events() {
		fmt.Fprintf(&b, "+%s %s %s %s", e.Time.Sub(timeline.Epoch), e.Actor, e.Verb, e.Object)
		for _, c := range e.Conditions {
			if c.After != nil {
				fmt.Fprintf(&b, " %s=%s", c.Type, c.After.Status)
			}
		}
		for _, f := range e.Fields {
			fmt.Fprintf(&b, " %s=%s", f.Path, f.After)
		}
		if e.Failed {
			fmt.Fprintf(&b, " FAILED %s", e.Detail)
		}
		b.WriteString("\n")
	}
	return b.String()
}
