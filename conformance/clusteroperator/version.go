package clusteroperator

import (
	"context"
	"errors"
	"sync"

	configv1 "github.com/openshift/api/config/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/payload"
	"github.com/opcert/opcert/reference/cvo"
)

// versionOperator is the cluster-version operator of a run: reference/cvo's
// adapter, asked for a new release the way an admin asks, by the
// ClusterVersion's spec.desiredUpdate (the scenario's upgrade step writes
// it). An upgrade refused while a component reports Upgradeable=False is
// asked again at every look, so it starts once the blocker is fixed (001
// §What should an operator report, guarantees to components 3); the
// ClusterVersion's Upgradeable condition says why meanwhile.
type versionOperator struct {
	op *cvo.Operator
	c  client.Client
	w  *World

	mu       sync.Mutex
	release  string // the release the sweep works towards
	payloads map[string]*payload.Payload
}

func (v *versionOperator) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cv := &configv1.ClusterVersion{}
	err := v.c.Get(ctx, client.ObjectKey{Name: cvo.ClusterVersionName}, cv)
	if err != nil && client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	if u := cv.Spec.DesiredUpdate; err == nil && u != nil && u.Version != "" && u.Version != v.target() {
		if err := v.upgrade(ctx, u.Version); err != nil {
			return reconcile.Result{}, err
		}
	}
	return v.op.Reconcile(ctx, req)
}

func (v *versionOperator) target() string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.release
}

// upgrade asks the core for the release; a refusal is not an error.
func (v *versionOperator) upgrade(ctx context.Context, release string) error {
	v.mu.Lock()
	p, ok := v.payloads[release]
	v.mu.Unlock()
	if !ok {
		var err error
		if p, err = releasePayload(v.w, release); err != nil {
			return err
		}
	}
	err := v.op.Upgrade(ctx, release, p)
	var refused *cvo.Refusal
	if errors.As(err, &refused) {
		return nil
	}
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.release, v.payloads[release] = release, p
	v.mu.Unlock()
	return nil
}
