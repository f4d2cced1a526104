package record

import (
	"context"
	"slices"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/sim/timeline"
)

// The recorder's latency on a local API server: from a write's request to
// the recorder seeing it, over 200 status writes, one after another (the
// README's figure: go test -run TestRecorderLatency -v ./record/). Also
// the lag a recording measures by itself (seen minus the managedFields
// time, which the server truncates to the second), from which the rules'
// tolerance comes.
func TestRecorderLatency(t *testing.T) {
	needAPI(t)
	const writes = 200
	ctx := context.Background()
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: unique("latency")}}
	rec := startRecorder(t, nil)
	if err := api.Client.Create(ctx, co, client.FieldOwner("op")); err != nil {
		t.Fatal(err)
	}
	rec.next(t, co.Name)
	var latencies []time.Duration
	var lag timeline.Lag
	for i := range writes {
		co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{cond("Available", "True", time.Duration(i).String())}
		sent := time.Now()
		if err := api.Client.Status().Update(ctx, co, client.FieldOwner("op")); err != nil {
			t.Fatal(err)
		}
		e := rec.next(t, co.Name)
		latencies = append(latencies, e.Time.Sub(sent.Truncate(time.Millisecond)))
		lag.Add(e)
	}
	slices.Sort(latencies)
	p := func(q float64) time.Duration { return latencies[int(q*float64(len(latencies)-1))] }
	t.Logf("write to seen over %d writes: p50 %s, p99 %s, max %s", writes, p(0.5), p(0.99), latencies[len(latencies)-1])
	t.Logf("recorded lag (seen - managedFields time): p50 %s, p99 %s, min %s, max %s; tolerance %s",
		lag.Quantile(0.5), lag.Quantile(0.99), lag.Min(), lag.Max(), lag.Tolerance())
	if p(0.99) > 2*time.Second {
		t.Errorf("p99 latency %s on a local server: the recorder is too slow to judge 30s budgets", p(0.99))
	}
	if tol := lag.Tolerance(); tol < time.Second || tol > 3*time.Second {
		t.Errorf("tolerance %s, want a second (the truncation) and the latency", tol)
	}
}
