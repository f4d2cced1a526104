package cvo

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// An Applier applies the manifests it takes in its own way (a team's
// Deployment given its version), and the Operator applies the others; its
// error is the apply's.
func TestApplier(t *testing.T) {
	dep := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": "etcd-operator", "name": "etcd-operator"}}}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": "default", "name": "etcd-config"}}}
	refused := apierrors.NewForbidden(corev1.Resource("deployments"), "etcd-operator", errors.New("no"))
	for _, tc := range []struct {
		name    string
		want    *unstructured.Unstructured
		err     error // the Applier's
		taken   bool  // the Applier took it
		created bool  // the Operator created it
	}{
		{name: "taken", want: dep, taken: true},
		{name: "taken, refused", want: dep, err: refused, taken: true},
		{name: "left to the Operator", want: cm, created: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			scheme := runtime.NewScheme()
			if err := clientgoscheme.AddToScheme(scheme); err != nil {
				t.Fatal(err)
			}
			c := fake.NewClientBuilder().WithScheme(scheme).Build()
			var seen []string
			o := &Operator{client: c, Applier: func(_ context.Context, u *unstructured.Unstructured) (bool, error) {
				if u.GetKind() != "Deployment" {
					return false, nil
				}
				seen = append(seen, u.GetNamespace()+"/"+u.GetName())
				return true, tc.err
			}}
			err := o.apply(context.Background(), tc.want)
			if !errors.Is(err, tc.err) {
				t.Errorf("apply: %v, want %v", err, tc.err)
			}
			if got := len(seen) == 1; got != tc.taken {
				t.Errorf("the Applier saw %v, want taken=%v", seen, tc.taken)
			}
			live := &unstructured.Unstructured{}
			live.SetGroupVersionKind(tc.want.GroupVersionKind())
			getErr := c.Get(context.Background(), client.ObjectKeyFromObject(tc.want), live)
			if created := getErr == nil; created != tc.created {
				t.Errorf("%s on the cluster: %v, want created=%v", tc.want.GetName(), getErr, tc.created)
			}
		})
	}
}
