package workload_test

import (
	"context"
	"testing"
	"time"
)

// dsPods is a DaemonSet's pods, one per node: version, phase and Ready
// of each node's in the nodes' order.
func dsPods(name string, states ...string) []string {
	var out []string
	for i, s := range states {
		out = append(out, name+"-"+threeNodes[i]+" "+threeNodes[i]+" "+s)
	}
	return out
}

// A DaemonSet rolls node by node in the nodes' order: the old pod is
// deleted and the new one created at once, and the next node goes once
// that one is ready.
func TestDaemonSetRollsNodeByNode(t *testing.T) {
	r := start(t, threeNodes)
	ds := daemonSet("agent", "A")
	r.at(0, r.create(ds))
	r.at(time.Minute, r.retemplate(ds, "B"))
	steps := []struct {
		at     time.Duration
		status string
		pods   []string
	}{
		{0, "gen=1 desired=3 current=3 updated=3 ready=0 available=0 unavailable=3",
			dsPods("agent", "A Pending False", "A Pending False", "A Pending False")},
		{30 * time.Second, "gen=1 desired=3 current=3 updated=3 ready=3 available=3 unavailable=0",
			dsPods("agent", "A Running True", "A Running True", "A Running True")},
		{time.Minute, "gen=2 desired=3 current=3 updated=1 ready=2 available=2 unavailable=1",
			dsPods("agent", "B Pending False", "A Running True", "A Running True")},
		{90 * time.Second, "gen=2 desired=3 current=3 updated=2 ready=2 available=2 unavailable=1",
			dsPods("agent", "B Running True", "B Pending False", "A Running True")},
		{2 * time.Minute, "gen=2 desired=3 current=3 updated=3 ready=2 available=2 unavailable=1",
			dsPods("agent", "B Running True", "B Running True", "B Pending False")},
		{150 * time.Second, "gen=2 desired=3 current=3 updated=3 ready=3 available=3 unavailable=0",
			dsPods("agent", "B Running True", "B Running True", "B Running True")},
	}
	for _, s := range steps {
		r.to(s.at)
		r.expectStatus(ds, s.status)
		r.expectPods("agent", s.pods...)
	}
}

// HoldNode leaves a DaemonSet's pod on that node at the old version for
// as long as it is held, the others rolling past it; released, it rolls.
func TestHoldNodeLeavesOneNodeBehind(t *testing.T) {
	r := start(t, threeNodes)
	ds := daemonSet("agent", "A")
	r.at(0, r.create(ds))
	r.at(45*time.Second, func(ctx context.Context) error { return r.wc.HoldNode(ctx, "master-1") })
	r.at(time.Minute, r.retemplate(ds, "B"))
	r.at(24*time.Hour, func(ctx context.Context) error { return r.wc.ReleaseNode(ctx, "master-1") })
	r.to(90 * time.Second)
	r.expectPods("agent", dsPods("agent", "B Running True", "A Running True", "B Pending False")...)
	r.to(24*time.Hour - time.Second)
	r.expectPods("agent", dsPods("agent", "B Running True", "A Running True", "B Running True")...)
	r.expectStatus(ds, "gen=2 desired=3 current=3 updated=2 ready=3 available=3 unavailable=0")
	r.to(24 * time.Hour)
	r.expectPods("agent", dsPods("agent", "B Running True", "B Pending False", "B Running True")...)
	r.expectStatus(ds, "gen=2 desired=3 current=3 updated=3 ready=2 available=2 unavailable=1")
	r.to(24*time.Hour + 30*time.Second)
	r.expectStatus(ds, "gen=2 desired=3 current=3 updated=3 ready=3 available=3 unavailable=0")
}

// A lost pod on one node takes the DaemonSet's one unavailable node: the
// rollout waits for it, then replaces it first (an unready old pod goes
// at once).
func TestDaemonSetWaitsForALostPod(t *testing.T) {
	r := start(t, threeNodes)
	ds := daemonSet("agent", "A")
	r.at(0, r.create(ds))
	r.at(45*time.Second, func(ctx context.Context) error { return r.wc.LosePod(ctx, ns, "agent-master-2") })
	r.at(time.Minute, r.retemplate(ds, "B"))
	r.to(time.Minute)
	r.expectPods("agent", dsPods("agent", "A Running True", "A Running True", "B Pending False")...)
	r.expectStatus(ds, "gen=2 desired=3 current=3 updated=1 ready=2 available=2 unavailable=1")
	r.to(90 * time.Second)
	r.expectPods("agent", dsPods("agent", "B Pending False", "A Running True", "B Running True")...)
}
