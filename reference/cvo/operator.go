package cvo

import (
	"context"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	manifests "github.com/opcert/opcert/payload"
)

// ClusterVersionName is the name of the ClusterVersion a cluster has, one
// and only one.
const ClusterVersionName = "version"

// Operator is the controller adapter around Step: each Reconcile reads the
// live ClusterOperators (and the Deployments of operators outside the
// payload), asks Step, applies the manifests Step lists, writes the
// ClusterVersion's status and asks to be called again at Step's deadline.
// It is a controller-runtime Reconciler; time comes only from its clock.
// Any request sweeps: the one ClusterVersion it writes is named by Name,
// not by the request, so a watch on ClusterOperators may map every change
// to any request.
//
// The State lives in memory only (the core's choice): an Operator started
// on a cluster whose ClusterVersion has a history takes that history and
// those conditions over, and sweeps again from the first task.
type Operator struct {
	// Name is the ClusterVersion written, ClusterVersionName unless set
	// before the first Reconcile (tests that share an API server give each
	// operator its own).
	Name string
	// Applier, when set before the first Reconcile, is asked first for
	// each manifest the sweep applies, and applies those it takes (true)
	// in its own way: on a cluster whose operators a team deployed,
	// opcert gives a team's Deployment its version instead of applying
	// the payload's operator Deployment over it. Its error is read as an
	// apply's (a refusal, or a retry). The core's decisions are the same
	// either way.
	Applier func(ctx context.Context, want *unstructured.Unstructured) (bool, error)

	client client.Client
	clock  clock.PassiveClock
	params Params

	mu sync.Mutex
	// state is the core's memory; objects[i] is what state.Tasks[i] applies.
	state   State
	objects []*unstructured.Unstructured
	// resumed is set once the live ClusterVersion has been read.
	resumed bool
}

// New is an Operator that installs version from the payload p, talking
// through c, with time from clk. The error is a payload that cannot be
// swept (TasksOf). The release's image is left empty: a payload here is a
// directory, not a release image.
func New(c client.Client, clk clock.PassiveClock, params Params, version string, p *manifests.Payload) (*Operator, error) {
	tasks, objects, err := TasksOf(p)
	if err != nil {
		return nil, err
	}
	return &Operator{Name: ClusterVersionName, client: c, clock: clk, params: params,
		state: Install(configv1.Release{Version: version}, tasks), objects: objects}, nil
}

// Reconcile sweeps once (any request; see Operator).
func (o *Operator) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.clock.Now()
	cv := &configv1.ClusterVersion{}
	if err := o.client.Get(ctx, client.ObjectKey{Name: o.Name}, cv); apierrors.IsNotFound(err) {
		cv = nil
	} else if err != nil {
		return reconcile.Result{}, err
	}
	if !o.resumed {
		o.resume(cv)
	}
	c, err := o.cluster(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	d, err := o.applyAll(ctx, Step(o.params, o.state, c, now), c, now)
	if err != nil {
		// The state is kept as it was: the next look sweeps afresh, and
		// what was applied already is left alone (apply).
		return reconcile.Result{}, err
	}
	if d.Write == nil && cv == nil {
		// Someone deleted the ClusterVersion: put it back as it was.
		d.Write = d.State.Status.DeepCopy()
	}
	if d.Write != nil {
		if err := o.write(ctx, cv, *d.Write); err != nil {
			return reconcile.Result{}, err
		}
	}
	o.state = d.State
	if d.Next.After(now) {
		return reconcile.Result{RequeueAfter: d.Next.Sub(now)}, nil
	}
	return reconcile.Result{}, nil
}

// Upgrade asks for the release version with its payload p: the next
// Reconcile starts sweeping it. While a live ClusterOperator reports
// Upgradeable=False the error is a *Refusal naming each and what it says
// must be fixed, and nothing changes (001 §What should an operator report,
// guarantees to components 3); asking for the desired version again
// changes nothing. Other errors are a payload that cannot be swept or the
// API server's.
func (o *Operator) Upgrade(ctx context.Context, version string, p *manifests.Payload) error {
	tasks, objects, err := TasksOf(p)
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	c, err := o.cluster(ctx)
	if err != nil {
		return err
	}
	s, err := Upgrade(o.state, c, configv1.Release{Version: version}, tasks)
	if err != nil {
		return err
	}
	if s.Status.Desired.Version != o.state.Status.Desired.Version {
		o.objects = objects
	}
	o.state = s
	return nil
}

// resume takes over the history and conditions of a ClusterVersion written
// before this Operator started, as the upstream does on a restart; the
// desired release stays the one this Operator was given, so a different
// one opens a new history entry.
func (o *Operator) resume(cv *configv1.ClusterVersion) {
	o.resumed = true
	if cv == nil || len(cv.Status.History) == 0 {
		return
	}
	st := cv.Status.DeepCopy()
	st.Desired = o.state.Status.Desired
	o.state.Status = *st
}

var deploymentKind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

// cluster reads what Step needs: the live ClusterOperators the payload
// names (each read by its name: a simulator answers a read of an object
// it knows without a call, and no list waits for a watch cache to catch
// up), and whether the Deployments of the operators the payload lacks
// (Ref.Index -1) are on the cluster. A ClusterOperator the payload does
// not name is not read: its Upgradeable blocks no upgrade here.
func (o *Operator) cluster(ctx context.Context) (Cluster, error) {
	c := Cluster{ClusterOperators: map[string]configv1.ClusterOperatorStatus{}, Deployments: map[string]bool{}}
	for _, t := range o.state.Tasks {
		if !t.ClusterOperator {
			continue
		}
		co := &configv1.ClusterOperator{}
		err := o.client.Get(ctx, client.ObjectKey{Name: t.Name}, co)
		switch {
		case err == nil:
			c.ClusterOperators[co.Name] = co.Status
		case !apierrors.IsNotFound(err):
			return Cluster{}, err
		}
	}
	for _, t := range o.state.Tasks[o.state.Done:] {
		if t.Operator == nil || t.Operator.Index >= 0 || c.Deployments[t.Operator.key()] {
			continue
		}
		d := &unstructured.Unstructured{}
		d.SetGroupVersionKind(deploymentKind)
		err := o.client.Get(ctx, client.ObjectKey{Namespace: t.Operator.Namespace, Name: t.Operator.Name}, d)
		switch {
		case err == nil:
			c.Deployments[t.Operator.key()] = true
		case !apierrors.IsNotFound(err):
			return Cluster{}, err
		}
	}
	return c, nil
}

// applyAll applies d.Apply in order. When the cluster refuses one, the
// tasks before it stay applied and the decision is Step's from the refused
// state (Refused), which reports it and offers it again later; an error
// that is no answer about the manifest (the API server unreachable, a
// conflict) is returned as it is, to be retried.
func (o *Operator) applyAll(ctx context.Context, d Decision, c Cluster, now time.Time) (Decision, error) {
	for _, t := range d.Apply {
		err := o.apply(ctx, o.objects[t.Index])
		if err == nil {
			continue
		}
		reason, message, refused := refusal(err, t.Kind)
		if !refused {
			return d, err
		}
		return Step(o.params, Refused(o.state, t, reason, message, now), c, now), nil
	}
	return d, nil
}

// write puts status on the ClusterVersion, creating it when cv is nil.
func (o *Operator) write(ctx context.Context, cv *configv1.ClusterVersion, status configv1.ClusterVersionStatus) error {
	if cv == nil {
		cv = &configv1.ClusterVersion{ObjectMeta: metav1.ObjectMeta{Name: o.Name},
			Spec: configv1.ClusterVersionSpec{ClusterID: clusterID(o.Name)}}
		if err := o.client.Create(ctx, cv); err != nil {
			return err
		}
	}
	cv.Status = status
	cv.Status.ObservedGeneration = cv.Generation
	return o.client.Status().Update(ctx, cv)
}
