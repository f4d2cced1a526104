package staleoperator_test

import (
	"context"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/examples/staleoperator"
)

// On the wall clock, under its manager, the operator creates its
// ClusterOperator and puts a challenged message back within a couple of
// seconds, told by its watch.
func TestManagerAnswersAChallengeAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	const name = "realtime-etcd"
	mgr, err := staleoperator.NewManager(server.Config(), name, staleoperator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(server.Config(), client.Options{Scheme: mgr.GetScheme()})
	if err != nil {
		t.Fatal(err)
	}
	available := func() (*configv1.ClusterOperator, string) {
		co := &configv1.ClusterOperator{}
		if err := c.Get(ctx, types.NamespacedName{Name: name}, co); err != nil {
			return nil, ""
		}
		for _, cond := range co.Status.Conditions {
			if cond.Type == configv1.OperatorAvailable {
				return co, cond.Message
			}
		}
		return co, ""
	}
	co := waitFor(t, "the ClusterOperator to be created", func() (*configv1.ClusterOperator, bool) {
		co, msg := available()
		return co, msg == staleoperator.Healthy()[0].Message
	})
	const challenge = "Operator checking for stale status, the active operator will reset this message: "
	for i := range co.Status.Conditions {
		co.Status.Conditions[i].Message = challenge + co.Status.Conditions[i].Message
	}
	if err := c.Status().Update(ctx, co); err != nil {
		t.Fatal(err)
	}
	challenged := time.Now()
	waitFor(t, "the challenge to be answered", func() (*configv1.ClusterOperator, bool) {
		co, msg := available()
		return co, msg != "" && !strings.HasPrefix(msg, challenge)
	})
	if d := time.Since(challenged); d > 2*time.Second {
		t.Errorf("answered after %s, want within 2s", d)
	}
}

// waitFor polls cond for up to 10 seconds, as a test may (the simulator
// never does).
func waitFor[T any](t *testing.T, what string, cond func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, ok := cond()
		if ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
