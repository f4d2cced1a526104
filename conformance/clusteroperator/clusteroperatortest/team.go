// Package clusteroperatortest is seed 001's team on a test cluster, shared
// by the mechanism's cluster test and cmd/opcert's refusal test: the
// example component operator deployed by
// examples/componentoperator/deploy.yaml (a Deployment per component at 0
// replicas, version 4.0.0), clustertest's Kubelet running its binary
// while a Deployment has replicas, opcert's roles bound as a team would
// bind them, and the state a run must leave as it found.
package clusteroperatortest

import (
	"context"
	"fmt"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/cluster/clustertest"
)

// Namespace is the example's: its operators' Deployments and their
// operands.
const Namespace = "example-components"

// The keys of the world the tests read, as the example names them.
const (
	// ManagedByKey is ManagedBy on each operand the example writes, and
	// not on one of the operator Deployments the Kubelet runs.
	ManagedByKey = "app.kubernetes.io/managed-by"
	ManagedBy    = "componentoperator"
	// VersionKey is the version on a pod template and its pods.
	VersionKey = "opcert.io/version"
)

// operators are the example's operator Deployments, and components the
// ClusterOperators they report.
var (
	operators  = []string{"etcd-operator", "network-operator"}
	components = []string{"etcd", "network"}
)

// Team is the team's cluster for seed 001.
type Team struct{ *clustertest.Team }

// Deploy deploys the example on api and starts the Kubelet running bin
// for the operators (their operands are the cluster's). The test's end
// stops it and starts over (StartOver).
func Deploy(t *testing.T, api *apiserver.Server, bin string) *Team {
	t.Helper()
	tm := &Team{clustertest.NewTeam(t, api, "components-admin", "../../examples/componentoperator/deploy.yaml")}
	t.Cleanup(func() { tm.StartOver(t) })
	tm.Start(t, api, "component-operator", clustertest.KubeletOptions{Namespace: Namespace, Bin: bin,
		Skip: func(d *appsv1.Deployment) bool { return d.Labels[ManagedByKey] == ManagedBy }})
	return tm
}

// StartOver removes what the operators made: their ClusterOperators and
// their operands and pods, as the team would to start over.
func (tm *Team) StartOver(t *testing.T) {
	ctx := context.Background()
	for _, name := range components {
		_ = tm.Admin.Delete(ctx, &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: name}})
	}
	in := []client.DeleteAllOfOption{client.InNamespace(Namespace), client.MatchingLabels{ManagedByKey: ManagedBy}}
	for _, obj := range []client.Object{&appsv1.Deployment{}, &appsv1.DaemonSet{}} {
		if err := tm.Admin.DeleteAllOf(ctx, obj, in...); err != nil {
			t.Error(err)
		}
	}
	if err := tm.Admin.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(Namespace), client.GracePeriodSeconds(0)); err != nil {
		t.Error(err)
	}
}

// Bind applies opcert's roles and binds them to group: opcert-cluster and
// opcert-cluster-version cluster-wide, opcert-cluster-scale and, if
// components, opcert-cluster-components in the components' namespace.
func (tm *Team) Bind(t *testing.T, group string, components bool) {
	t.Helper()
	inNS := []string{"opcert-cluster-scale"}
	if components {
		inNS = append(inNS, "opcert-cluster-components")
	}
	clustertest.Bind(t, tm.Config, []string{"../../config/rbac/opcert-cluster.yaml", "../../config/rbac/opcert-cluster-components.yaml"}, group,
		[]string{"opcert-cluster", "opcert-cluster-version"}, Namespace, inNS)
}

// State is what a run may change and must leave as it found: the
// namespaces, opcert's labelled objects, the ConfigMaps of the
// components' namespace, and each operator Deployment's replicas and
// version label, with their resource versions if versions (to show that
// nothing was written).
func (tm *Team) State(t *testing.T, versions bool) []string {
	t.Helper()
	ctx := context.Background()
	out := clustertest.Namespaces(t, tm.Config, tm.Admin)
	var cms corev1.ConfigMapList
	if err := tm.Admin.List(ctx, &cms, client.InNamespace(Namespace)); err != nil {
		t.Fatal(err)
	}
	for _, cm := range cms.Items {
		out = append(out, fmt.Sprintf("configmap %s %v", cm.Name, cm.Data))
	}
	for _, name := range operators {
		d := &appsv1.Deployment{}
		if err := tm.Admin.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: name}, d); err != nil {
			t.Fatal(err)
		}
		line := fmt.Sprintf("deployment %s replicas=%d version=%s", name, *d.Spec.Replicas, d.Spec.Template.Labels[VersionKey])
		if versions {
			line += " rv=" + d.ResourceVersion
		}
		out = append(out, line)
	}
	return out
}
