package cvo

import (
	"context"
	"crypto/sha1"
	"errors"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Reasons of a manifest the cluster refused, besides
// ReasonResourceTypeMissing; the upstream's names where it has one.
const (
	ReasonResourceNotFound  = "UpdatePayloadResourceNotFound"
	ReasonResourceInvalid   = "UpdatePayloadResourceInvalid"
	ReasonResourceForbidden = "UpdatePayloadResourceForbidden"
	ReasonApplyFailed       = "UpdatePayloadFailed"
)

// apply creates want, or updates the live object with want's fields laid
// over it, as the upstream merges a manifest into what is there: fields
// others set (defaults, labels, status) stay. An object that already holds
// every field of want is not written.
func (o *Operator) apply(ctx context.Context, want *unstructured.Unstructured) error {
	if o.Applier != nil {
		if taken, err := o.Applier(ctx, want.DeepCopy()); taken || err != nil {
			return err
		}
	}
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(want.GroupVersionKind())
	err := o.client.Get(ctx, client.ObjectKeyFromObject(want), live)
	if apierrors.IsNotFound(err) {
		return o.client.Create(ctx, want.DeepCopy())
	}
	if err != nil {
		return err
	}
	merged := live.DeepCopy()
	overlay(merged.Object, want.Object)
	if equality.Semantic.DeepEqual(merged.Object, live.Object) {
		return nil
	}
	return o.client.Update(ctx, merged)
}

// overlay sets every field of src in dst: mappings field by field, any
// other value (lists too) whole.
func overlay(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				overlay(dm, sm)
				continue
			}
		}
		dst[k] = runtime.DeepCopyJSONValue(v)
	}
}

// refusal reads an apply's error as the cluster's answer about the
// manifest (a kind of kind), with a reason and a clause for Refused; false
// when the error says nothing about the manifest (no answer, a conflict,
// the server busy), so the apply is simply tried again.
func refusal(err error, kind string) (reason, message string, refused bool) {
	if meta.IsNoMatchError(err) {
		// 001 §Conditions' own example.
		return ReasonResourceTypeMissing, fmt.Sprintf("the resource type %s has not been installed on the server", kind), true
	}
	var status apierrors.APIStatus
	switch {
	case !errors.As(err, &status), apierrors.IsConflict(err), apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsTooManyRequests(err), apierrors.IsServiceUnavailable(err):
		return "", "", false
	case apierrors.IsNotFound(err):
		reason = ReasonResourceNotFound
	case apierrors.IsInvalid(err):
		reason = ReasonResourceInvalid
	case apierrors.IsForbidden(err):
		reason = ReasonResourceForbidden
	default:
		reason = ReasonApplyFailed
	}
	return reason, "the server answered: " + err.Error(), true
}

// clusterID is the spec.clusterID of a ClusterVersion the operator creates:
// the CRD requires one, in the form of an RFC 4122 UUID. It is derived from
// the name (a version 5 form, not random) so that a run gives the same
// object every time.
func clusterID(name string) configv1.ClusterID {
	h := sha1.Sum([]byte("opcert.io/clusterversion/" + name))
	h[6] = h[6]&0x0f | 0x50 // version 5
	h[8] = h[8]&0x3f | 0x80 // the RFC 4122 variant
	return configv1.ClusterID(fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16]))
}
