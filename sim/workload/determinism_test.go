package workload_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// One script gives one timeline, byte for byte: three kinds of workload
// rolling at once, at one pace and another, with every fault.
func TestSameScriptSameTimeline(t *testing.T) {
	play := func() []byte {
		r := start(t, threeNodes)
		web, agent, db := deployment("web", "A", 3), daemonSet("agent", "A"), statefulSet("db", "A", 2)
		agent.Annotations = map[string]string{"opcert.io/ready-after": "45s"}
		r.at(0, r.create(web))
		r.at(0, r.create(agent))
		r.at(0, r.create(db))
		r.at(time.Minute, func(ctx context.Context) error { return r.wc.Stick(ctx, ns, "web", "B") })
		r.at(2*time.Minute, r.retemplate(web, "B"))
		r.at(2*time.Minute, r.retemplate(agent, "B"))
		r.at(2*time.Minute, r.retemplate(db, "B"))
		r.at(3*time.Minute, func(ctx context.Context) error { return r.wc.HoldNode(ctx, "master-2") })
		r.at(4*time.Minute, func(ctx context.Context) error { return r.wc.FailPod(ctx, ns, "db-0") })
		r.at(5*time.Minute, func(ctx context.Context) error { return r.wc.LosePod(ctx, ns, dpod("web", "A", 1)) })
		r.at(6*time.Minute, func(ctx context.Context) error { return r.wc.RecoverPod(ctx, ns, "db-0") })
		r.at(7*time.Minute, func(ctx context.Context) error { return r.wc.Unstick(ctx, ns, "web", "B") })
		r.at(8*time.Minute, func(ctx context.Context) error { return r.wc.ReleaseNode(ctx, "master-2") })
		r.at(6*time.Minute+30*time.Second, func(ctx context.Context) error { return r.wc.RecoverPod(ctx, ns, dpod("web", "A", 1)) })
		r.to(time.Hour)
		// Every fault undone, every workload ends at B.
		r.expectStatus(web, "gen=2 replicas=3 updated=3 ready=3 available=3 unavailable=0")
		r.expectStatus(agent, "gen=2 desired=3 current=3 updated=3 ready=3 available=3 unavailable=0")
		r.expectStatus(db, "gen=2 replicas=2 ready=2 current=2 updated=2 available=2")
		var out bytes.Buffer
		if err := r.tl.WriteJSONL(&out); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(r.transcript(), "FAILED"); n > 0 {
			t.Errorf("%d failed writes:\n%s", n, r.transcript())
		}
		return out.Bytes()
	}
	first, second := play(), play()
	if !bytes.Equal(first, second) {
		t.Errorf("two runs of one script gave two timelines (first difference at byte %d)", firstDiff(first, second))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
