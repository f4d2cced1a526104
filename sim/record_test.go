package sim

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/sim/timeline"
)

// A simulated node's events, recorded with the work's context, land in
// object order even when the later object's work records first.
func TestRecordedNodeEventsKeepObjectOrder(t *testing.T) {
	s, _, tl := newScheduler()
	s.Workers = 4
	bDone := make(chan struct{})
	file := func(node, path string) timeline.ObjectRef {
		return timeline.ObjectRef{Kind: timeline.KindFile, Namespace: node, Name: path}
	}
	r := newRecorder(s, func(ctx context.Context, rq reconcile.Request, _ int) (reconcile.Result, error) {
		switch rq.Name {
		case "a":
			<-bDone // a records after b has
			s.Record(ctx, timeline.Event{Actor: "installer", Role: "installer", Verb: timeline.VerbWrite,
				Object: file("master-0", "/etc/kubernetes/manifests/.kas.tmp"), Detail: "12 bytes"})
			s.Record(ctx, timeline.Event{Actor: "installer", Role: "installer", Verb: timeline.VerbRename,
				Object: file("master-0", "/etc/kubernetes/manifests/.kas.tmp"), Target: "/etc/kubernetes/manifests/kas-pod.yaml"})
		case "b":
			s.Record(ctx, timeline.Event{Actor: "monitor", Role: "monitor", Verb: timeline.VerbProbe,
				Object: timeline.ObjectRef{Kind: timeline.KindProbe, Namespace: "master-1", Name: "kube-apiserver/readyz"},
				Detail: "connection refused", Failed: true})
			close(bDone)
		}
		return reconcile.Result{}, nil
	})
	mustStart(t, s, Actor{Name: "node", Role: "node", Reconciler: r, Initial: []reconcile.Request{req("b"), req("a")}})
	mustRun(t, s, at(time.Second))

	checkEvents(t, tl,
		"+0s node start Process/node",
		"+0s installer write File/master-0//etc/kubernetes/manifests/.kas.tmp",
		"+0s installer rename File/master-0//etc/kubernetes/manifests/.kas.tmp",
		"+0s monitor probe Probe/master-1/kube-apiserver/readyz FAILED",
	)
	line, _ := json.Marshal(tl.Events()[2])
	if want := `{"seq":3,"time":"2026-01-01T00:00:00Z","actor":"installer","role":"installer","verb":"rename",` +
		`"object":{"kind":"File","namespace":"master-0","name":"/etc/kubernetes/manifests/.kas.tmp"},"target":"/etc/kubernetes/manifests/kas-pod.yaml"}`; string(line) != want {
		t.Errorf("rename recorded as\n  %s\nwant\n  %s", line, want)
	}
}

// An event recorded during a batch without the work's context would land
// wherever the goroutines put it: the run fails instead, saying so.
func TestRecordingWithoutTheWorksContextFailsTheRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(s *Scheduler, c *Client) error
	}{
		{"Record", func(s *Scheduler, _ *Client) error {
			s.Record(context.Background(), timeline.Event{Actor: "x", Verb: timeline.VerbProbe})
			return nil
		}},
		{"a write", func(s *Scheduler, c *Client) error {
			return writeStatus(context.Background(), s, c, "x", "Available", configv1.ConditionTrue, "up")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _, tl := newScheduler()
			c := s.Client(newAPI(t, clusterOperator("x")), "x", "operator")
			mustStart(t, s, Actor{Name: "x", Reconciler: newRecorder(s, func(context.Context, reconcile.Request, int) (reconcile.Result, error) {
				return reconcile.Result{}, tc.act(s, c)
			})})
			s.Enqueue("x", req("x"), at(time.Second))
			err := s.Run(context.Background(), at(time.Minute))
			want := "1 event(s) recorded at 2026-01-01T00:00:01Z without the context the scheduler passed to the work being run"
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Run: %v, want %q...", err, want)
			}
			if n := len(tl.Events()); n != 2 {
				t.Errorf("%d events, want the start and the stray one", n)
			}
			// Outside Run there is no batch to disturb.
			s.Record(context.Background(), timeline.Event{Actor: "x", Verb: timeline.VerbProbe})
			if err := s.Run(context.Background(), at(2*time.Minute)); err != nil {
				t.Errorf("a later Run: %v", err)
			}
		})
	}
}
