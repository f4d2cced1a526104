package workload_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/workload"
)

// A Deployment of 3 replicas comes up: three pods at once, spread over the
// nodes, Pending and unready, all Running and Ready 30s later.
func TestDeploymentComesUp(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.to(0)
	r.expectPods("web",
		dpod("web", "A", 0)+" master-0 A Pending False",
		dpod("web", "A", 1)+" master-1 A Pending False",
		dpod("web", "A", 2)+" master-2 A Pending False")
	r.expectStatus(d, "gen=1 replicas=3 updated=3 ready=0 available=0 unavailable=3")
	r.expectProgress(d, "Available=False/MinimumReplicasUnavailable Progressing=True/ReplicaSetUpdated")
	r.to(29 * time.Second)
	r.expectStatus(d, "gen=1 replicas=3 updated=3 ready=0 available=0 unavailable=3")
	r.to(30 * time.Second)
	r.expectPods("web",
		dpod("web", "A", 0)+" master-0 A Running True",
		dpod("web", "A", 1)+" master-1 A Running True",
		dpod("web", "A", 2)+" master-2 A Running True")
	r.expectStatus(d, "gen=1 replicas=3 updated=3 ready=3 available=3 unavailable=0")
}

// A template change rolls one pod at a time (maxSurge 1, maxUnavailable
// 0): a new pod is surged, and once it is ready an old one goes and the
// next new one comes, every 30s, with the counts right at each instant.
// The old pod to go is the one on the node with the most pods.
func TestDeploymentRollsOnePodAtATime(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.at(time.Minute, r.retemplate(d, "B"))
	a := func(i int, node string) string { return dpod("web", "A", i) + " " + node + " A Running True" }
	b := func(i int, node, phase, ready string) string {
		return dpod("web", "B", i) + " " + node + " B " + phase + " " + ready
	}
	const (
		created   = "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetCreated"
		updated   = "Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated"
		available = "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable"
	)
	steps := []struct {
		at         time.Duration
		status     string
		conditions string
		pods       []string
	}{
		{30 * time.Second, "gen=1 replicas=3 updated=3 ready=3 available=3 unavailable=0", available, []string{
			a(0, "master-0"), a(1, "master-1"), a(2, "master-2")}},
		{time.Minute, "gen=2 replicas=4 updated=1 ready=3 available=3 unavailable=1", created, []string{
			a(0, "master-0"), a(1, "master-1"), a(2, "master-2"), b(0, "master-0", "Pending", "False")}},
		{89 * time.Second, "gen=2 replicas=4 updated=1 ready=3 available=3 unavailable=1", created, []string{
			a(0, "master-0"), a(1, "master-1"), a(2, "master-2"), b(0, "master-0", "Pending", "False")}},
		{90 * time.Second, "gen=2 replicas=4 updated=2 ready=3 available=3 unavailable=1", updated, []string{
			a(1, "master-1"), a(2, "master-2"), b(0, "master-0", "Running", "True"), b(1, "master-1", "Pending", "False")}},
		{2 * time.Minute, "gen=2 replicas=4 updated=3 ready=3 available=3 unavailable=1", updated, []string{
			a(2, "master-2"), b(0, "master-0", "Running", "True"), b(1, "master-1", "Running", "True"), b(2, "master-2", "Pending", "False")}},
		{150 * time.Second, "gen=2 replicas=3 updated=3 ready=3 available=3 unavailable=0", available, []string{
			b(0, "master-0", "Running", "True"), b(1, "master-1", "Running", "True"), b(2, "master-2", "Running", "True")}},
	}
	for _, s := range steps {
		r.to(s.at)
		r.expectStatus(d, s.status)
		r.expectProgress(d, s.conditions)
		r.expectPods("web", s.pods...)
	}
}

// Stick leaves the surged pod of the stuck version Running and unready
// and the rollout where it is, as long as it lasts; Unstick lets the pod
// get ready at once (its time came long ago) and the rollout carry on.
func TestStickHoldsTheRollout(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.at(45*time.Second, func(ctx context.Context) error { return r.wc.Stick(ctx, ns, "web", "B") })
	r.at(time.Minute, r.retemplate(d, "B"))
	r.at(time.Hour, func(ctx context.Context) error { return r.wc.Unstick(ctx, ns, "web", "B") })
	a := func(i int, node string) string { return dpod("web", "A", i) + " " + node + " A Running True" }
	r.to(90 * time.Second)
	stuck := []string{a(0, "master-0"), a(1, "master-1"), a(2, "master-2"), dpod("web", "B", 0) + " master-0 B Running False"}
	r.expectPods("web", stuck...)
	r.expectStatus(d, "gen=2 replicas=4 updated=1 ready=3 available=3 unavailable=1")
	// The progress deadline (600s) passes a second before the controller
	// looks again.
	r.to(11 * time.Minute)
	r.expectProgress(d, "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetCreated")
	r.to(11*time.Minute + time.Second)
	r.expectProgress(d, "Available=True/MinimumReplicasAvailable Progressing=False/ProgressDeadlineExceeded")
	r.to(time.Hour - time.Second)
	r.expectPods("web", stuck...)
	r.expectStatus(d, "gen=2 replicas=4 updated=1 ready=3 available=3 unavailable=1")
	r.to(time.Hour)
	r.expectProgress(d, "Available=True/MinimumReplicasAvailable Progressing=True/ReplicaSetUpdated")
	r.expectPods("web", a(1, "master-1"), a(2, "master-2"), dpod("web", "B", 0)+" master-0 B Running True",
		dpod("web", "B", 1)+" master-1 B Pending False")
	r.expectStatus(d, "gen=2 replicas=4 updated=2 ready=3 available=3 unavailable=1")
	r.to(time.Hour + time.Minute + 30*time.Second)
	r.expectStatus(d, "gen=2 replicas=3 updated=3 ready=3 available=3 unavailable=0")
	r.expectProgress(d, "Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable")
}

// A Deployment's pods on a held node are not replaced, and its new pods
// go elsewhere: the rollout ends with one old pod left beside the three
// new ones, until the node is released.
func TestHoldNodeKeepsADeploymentPod(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.at(45*time.Second, func(ctx context.Context) error { return r.wc.HoldNode(ctx, "master-1") })
	r.at(time.Minute, r.retemplate(d, "B"))
	r.at(time.Hour, func(ctx context.Context) error { return r.wc.ReleaseNode(ctx, "master-1") })
	b := func(i int, node string) string { return dpod("web", "B", i) + " " + node + " B Running True" }
	r.to(time.Hour - time.Second)
	r.expectPods("web", dpod("web", "A", 1)+" master-1 A Running True", b(0, "master-0"), b(1, "master-2"), b(2, "master-0"))
	r.expectStatus(d, "gen=2 replicas=4 updated=3 ready=4 available=4 unavailable=0")
	r.to(time.Hour)
	r.expectPods("web", b(0, "master-0"), b(1, "master-2"), b(2, "master-0"))
	r.expectStatus(d, "gen=2 replicas=3 updated=3 ready=3 available=3 unavailable=0")
}

// FailPod, LosePod and RecoverPod: a failed pod leaves the replicas (it
// is not active) and the ready count, a lost one only the ready count;
// neither is replaced; a recovered pod runs at once and is ready 30s on.
func TestPodFaults(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	p0, p1, p2 := dpod("web", "A", 0), dpod("web", "A", 1), dpod("web", "A", 2)
	r.at(time.Minute, func(ctx context.Context) error { return r.wc.FailPod(ctx, ns, p1) })
	r.at(2*time.Minute, func(ctx context.Context) error { return r.wc.LosePod(ctx, ns, p2) })
	r.at(3*time.Minute, func(ctx context.Context) error { return r.wc.RecoverPod(ctx, ns, p1) })
	r.at(4*time.Minute, func(ctx context.Context) error { return r.wc.RecoverPod(ctx, ns, p2) })
	steps := []struct {
		at     time.Duration
		status string
		pods   []string
	}{
		{time.Minute, "gen=1 replicas=2 updated=2 ready=2 available=2 unavailable=1", []string{
			p0 + " master-0 A Running True", p1 + " master-1 A Failed False", p2 + " master-2 A Running True"}},
		{2 * time.Minute, "gen=1 replicas=2 updated=2 ready=1 available=1 unavailable=2", []string{
			p0 + " master-0 A Running True", p1 + " master-1 A Failed False", p2 + " master-2 A Unknown Unknown"}},
		{3 * time.Minute, "gen=1 replicas=3 updated=3 ready=1 available=1 unavailable=2", []string{
			p0 + " master-0 A Running True", p1 + " master-1 A Running False", p2 + " master-2 A Unknown Unknown"}},
		{3*time.Minute + 30*time.Second, "gen=1 replicas=3 updated=3 ready=2 available=2 unavailable=1", []string{
			p0 + " master-0 A Running True", p1 + " master-1 A Running True", p2 + " master-2 A Unknown Unknown"}},
		{4*time.Minute + 30*time.Second, "gen=1 replicas=3 updated=3 ready=3 available=3 unavailable=0", []string{
			p0 + " master-0 A Running True", p1 + " master-1 A Running True", p2 + " master-2 A Running True"}},
	}
	for _, s := range steps {
		r.to(s.at)
		r.expectStatus(d, s.status)
		r.expectPods("web", s.pods...)
	}
}

// Scaling up adds the pods at once, spread over the nodes; scaling down
// deletes the newest first.
func TestDeploymentScales(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.at(time.Minute, r.scale(d, 5))
	r.at(2*time.Minute, r.scale(d, 2))
	run := func(i int, node string) string { return dpod("web", "A", i) + " " + node + " A Running True" }
	r.to(time.Minute)
	r.expectStatus(d, "gen=2 replicas=5 updated=5 ready=3 available=3 unavailable=2")
	r.expectPods("web", run(0, "master-0"), run(1, "master-1"), run(2, "master-2"),
		dpod("web", "A", 3)+" master-0 A Pending False", dpod("web", "A", 4)+" master-1 A Pending False")
	r.to(90 * time.Second)
	r.expectStatus(d, "gen=2 replicas=5 updated=5 ready=5 available=5 unavailable=0")
	r.to(2 * time.Minute)
	r.expectStatus(d, "gen=3 replicas=2 updated=2 ready=2 available=2 unavailable=0")
	r.expectPods("web", run(0, "master-0"), run(1, "master-1"))
}

// A controller started over pods an earlier one made takes them over (its
// first look at the namespace finds the workload): they get ready when
// they would have, and the next rollout replaces them.
func TestRestartedControllerAdoptsItsPods(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 3)
	r.at(0, r.create(d))
	r.at(10*time.Second, func(ctx context.Context) error { return r.s.Kill(ctx, workload.Role) })
	r.at(20*time.Second, func(ctx context.Context) error {
		r.wc = workload.New(workload.Options{Scheduler: r.s, API: api.Client, Namespaces: []string{ns}, Nodes: threeNodes})
		return r.s.Start(ctx, r.wc.Actor())
	})
	r.at(time.Minute, r.retemplate(d, "B"))
	r.to(29 * time.Second)
	r.expectStatus(d, "gen=1 replicas=3 updated=3 ready=0 available=0 unavailable=3")
	r.to(30 * time.Second)
	r.expectStatus(d, "gen=1 replicas=3 updated=3 ready=3 available=3 unavailable=0")
	r.to(time.Minute)
	r.expectPods("web",
		dpod("web", "A", 0)+" master-0 A Running True",
		dpod("web", "A", 1)+" master-1 A Running True",
		dpod("web", "A", 2)+" master-2 A Running True",
		dpod("web", "B", 0)+" master-0 B Pending False")
	r.to(150 * time.Second)
	r.expectStatus(d, "gen=2 replicas=3 updated=3 ready=3 available=3 unavailable=0")
}

// A workload's opcert.io/ready-after sets its pods' pace; a workload
// deleted takes its pods with it, as the garbage collector would.
func TestReadyAfterAndDeletion(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 2)
	d.Annotations = map[string]string{workload.AnnotationReadyAfter: "1m"}
	r.at(0, r.create(d))
	r.at(2*time.Minute, func(ctx context.Context) error { return r.scenario.Delete(ctx, d) })
	r.to(59 * time.Second)
	r.expectStatus(d, "gen=1 replicas=2 updated=2 ready=0 available=0 unavailable=2")
	r.to(time.Minute)
	r.expectStatus(d, "gen=1 replicas=2 updated=2 ready=2 available=2 unavailable=0")
	r.to(2 * time.Minute)
	r.expectPods("web")
}

// Pods are the controller's own; one deleted behind its back is made
// again when the controller next writes it (here when it gets ready), and
// takes its time to get ready.
func TestPodDeletedBehindItsBackIsMadeAgain(t *testing.T) {
	r := start(t, threeNodes)
	d := deployment("web", "A", 1)
	r.at(0, r.create(d))
	r.at(10*time.Second, func(ctx context.Context) error {
		pod := &corev1.Pod{}
		pod.Namespace, pod.Name = ns, dpod("web", "A", 0)
		return r.scenario.Delete(ctx, pod, client.GracePeriodSeconds(0))
	})
	r.to(30 * time.Second)
	r.expectPods("web", dpod("web", "A", 0)+" master-0 A Pending False")
	r.expectStatus(d, "gen=1 replicas=1 updated=1 ready=0 available=0 unavailable=1")
	r.to(time.Minute)
	r.expectPods("web", dpod("web", "A", 0)+" master-0 A Running True")
	r.expectStatus(d, "gen=1 replicas=1 updated=1 ready=1 available=1 unavailable=0")
}
