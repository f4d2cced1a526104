// Package staletest is seed 000's team on a test cluster, shared by the
// mechanism's cluster test and cmd/opcert's tests of cluster mode's own
// part: the example operator deployed as a team would, by
// examples/staleoperator/deploy.yaml (two Deployments, etcd-operator and
// dns-operator, at 1 replica, with ClusterOperators of their own),
// clustertest's Kubelet running their pods, and everything on the server
// a run could leave or change (Snapshot).
package staletest

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/cluster/clustertest"
)

// Namespace is the example's: its operators' Deployments.
const Namespace = "example-operators"

// operators are the example's ClusterOperators, each reported by the
// Deployment <name>-operator.
var operators = []string{"etcd", "dns"}

// Deploy deploys the example on api (both Deployments at 1 replica) and
// starts the Kubelet running bin; both operators have written their
// ClusterOperators' conditions when it returns. The test's end stops the
// Kubelet (its processes die) and deletes the ClusterOperators, so that
// tests after it on a shared server see nothing of it.
func Deploy(t *testing.T, api *apiserver.Server, bin string) *clustertest.Team {
	t.Helper()
	tm := clustertest.NewTeam(t, api, "team-admin", "../../examples/staleoperator/deploy.yaml")
	for _, name := range operators {
		scaleTo(t, tm.Admin, name+"-operator", 1)
	}
	t.Cleanup(func() {
		for _, name := range operators {
			_ = tm.Admin.Delete(context.Background(), &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	})
	tm.Start(t, api, "example-operator", clustertest.KubeletOptions{Namespace: Namespace, Bin: bin})
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range operators {
		for {
			co := &configv1.ClusterOperator{}
			err := tm.Admin.Get(context.Background(), client.ObjectKey{Name: name}, co)
			if err == nil && len(co.Status.Conditions) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the example operator did not create ClusterOperator %s: %v\n%s", name, err, tm.Kubelet.Logs())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return tm
}

func scaleTo(t *testing.T, c client.Client, name string, n int32) {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: name}, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas != nil && *d.Spec.Replicas == n {
		return
	}
	d.Spec.Replicas = &n
	if err := c.Update(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// Snapshot is everything on the server a cluster-mode run could leave or
// change, one line each, read with the team's access cfg (c its client):
// every namespace (and its phase), every object of every listable kind
// labelled opcert.io/run, every ClusterOperator (its labels), every
// Deployment of the team (its replicas); with versions, the resource
// versions of the ClusterOperators and Deployments too (to show that
// nothing was written).
func Snapshot(t *testing.T, cfg *rest.Config, c client.Client, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	out := clustertest.Namespaces(t, cfg, c)
	var cos configv1.ClusterOperatorList
	if err := c.List(ctx, &cos); err != nil {
		t.Fatal(err)
	}
	for _, co := range cos.Items {
		line := fmt.Sprintf("clusteroperator %s labels=%v", co.Name, co.Labels)
		if versions {
			line += " rv=" + co.ResourceVersion
		}
		out = append(out, line)
	}
	out = append(out, clustertest.Deployments(t, c, Namespace, versions)...)
	sort.Strings(out)
	return out
}
