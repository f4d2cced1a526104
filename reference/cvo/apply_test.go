package cvo

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// A manifest's fields are laid over the live object's: mappings merge,
// lists and other values are the manifest's.
func TestOverlay(t *testing.T) {
	for _, tc := range []struct {
		name           string
		live, manifest map[string]any
		want           map[string]any
	}{
		{name: "others' fields stay",
			live:     map[string]any{"metadata": map[string]any{"name": "a", "uid": "u"}, "status": map[string]any{"ready": true}},
			manifest: map[string]any{"metadata": map[string]any{"name": "a", "labels": map[string]any{"k": "v"}}},
			want:     map[string]any{"metadata": map[string]any{"name": "a", "uid": "u", "labels": map[string]any{"k": "v"}}, "status": map[string]any{"ready": true}}},
		{name: "a list is the manifest's, whole",
			live:     map[string]any{"spec": map[string]any{"args": []any{"a", "b"}, "replicas": int64(3)}},
			manifest: map[string]any{"spec": map[string]any{"args": []any{"c"}}},
			want:     map[string]any{"spec": map[string]any{"args": []any{"c"}, "replicas": int64(3)}}},
		{name: "a mapping replaces another value",
			live:     map[string]any{"data": "x"},
			manifest: map[string]any{"data": map[string]any{"k": "v"}},
			want:     map[string]any{"data": map[string]any{"k": "v"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			overlay(tc.live, tc.manifest)
			if !reflect.DeepEqual(tc.live, tc.want) {
				t.Errorf("got %v, want %v", tc.live, tc.want)
			}
		})
	}
}

// An error that is the cluster's answer about a manifest is a refusal with
// a reason (the seed's words for a missing resource type, 001
// §Conditions); one that says nothing about it is retried.
func TestRefusal(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "deployments"}
	for _, tc := range []struct {
		name    string
		err     error
		reason  string
		message string
	}{
		{"resource type missing", &meta.NoKindMatchError{GroupKind: schema.GroupKind{Group: "x", Kind: "NetworkConfig"}},
			ReasonResourceTypeMissing, "the resource type NetworkConfig has not been installed on the server"},
		{"namespace missing", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "ns"),
			ReasonResourceNotFound, `the server answered: namespaces "ns" not found`},
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "d", field.ErrorList{field.Required(field.NewPath("spec"), "")}),
			ReasonResourceInvalid, `the server answered: Deployment.apps "d" is invalid: spec: Required value`},
		{"forbidden", apierrors.NewForbidden(gr, "d", errors.New("no")),
			ReasonResourceForbidden, `the server answered: deployments.apps "d" is forbidden: no`},
		{"wrapped", fmt.Errorf("applying: %w", apierrors.NewInternalError(errors.New("webhook down"))),
			ReasonApplyFailed, "the server answered: applying: Internal error occurred: webhook down"},
		{"conflict: retried", apierrors.NewConflict(gr, "d", errors.New("changed")), "", ""},
		{"server busy: retried", apierrors.NewTooManyRequests("later", 1), "", ""},
		{"no answer: retried", errors.New("connection refused"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reason, message, refused := refusal(tc.err, "NetworkConfig")
			if refused != (tc.reason != "") || reason != tc.reason || message != tc.message {
				t.Errorf("refusal = %q, %q, %v; want %q, %q", reason, message, refused, tc.reason, tc.message)
			}
		})
	}
}

// A created ClusterVersion's spec.clusterID is an RFC 4122 UUID, the same
// for the same name and another for another.
func TestClusterID(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	a, b := clusterID("version"), clusterID("other")
	if !uuid.MatchString(string(a)) || !uuid.MatchString(string(b)) {
		t.Errorf("%s, %s are not version 5 UUIDs", a, b)
	}
	if a != clusterID("version") || a == b {
		t.Errorf("clusterID(version) = %s then %s; clusterID(other) = %s", a, clusterID("version"), b)
	}
}
