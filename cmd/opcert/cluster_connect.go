package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/reports"
)

// Reaching a cluster for a run (cluster mode, cluster.go): everything the
// runs need is read and checked before the first write, which is the
// run's namespace.

// connectTimeout bounds reaching the cluster and the checks before a run.
const connectTimeout = 30 * time.Second

// connect reaches the cluster, checks everything the runs need before
// writing anything (the kinds served, the rights, the Deployments), then
// creates the run's namespace, and returns the target whose close deletes
// what the runs created.
func (c *clusterFlags) connect(parent context.Context, stderr io.Writer, plans []plan, scale float64) (*target, context.Context, error) {
	start := time.Now()
	fmt.Fprintf(stderr, "opcert: %s\n", realTime(plans, scale))
	cfg, ctxName, err := cluster.Load(c.kubeconfig, c.context)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "opcert: cluster mode: %s (context %s)\n", redact.URLs(cfg.Host), ctxName)
	pre, cancel := context.WithTimeout(parent, connectTimeout)
	defer cancel()
	dcfg := rest.CopyConfig(cfg)
	dcfg.Timeout = connectTimeout // not on cfg: it would end the watches
	dc, err := discovery.NewDiscoveryClientForConfig(dcfg)
	if err != nil {
		return nil, nil, err
	}
	version, err := dc.ServerVersion()
	if err != nil {
		return nil, nil, envError{fmt.Errorf("cannot reach the cluster at %s (context %s): %w", redact.URLs(cfg.Host), ctxName, err)}
	}
	base, err := client.NewWithWatch(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		return nil, nil, err
	}
	objects, _, made := touched(plans)
	kinds, err := c.preflight(pre, base, plans, objects)
	if err != nil {
		if pre.Err() != nil && parent.Err() != nil {
			return nil, nil, context.Cause(parent)
		}
		return nil, nil, err
	}
	replicas, err := deploymentReplicas(pre, base, objects, made)
	if err != nil {
		return nil, nil, err
	}
	id, err := runID()
	if err != nil {
		return nil, nil, err
	}
	swept, err := cluster.Sweep(pre, base, cluster.Self(), time.Now())
	if err != nil {
		return nil, nil, envError{err}
	}
	for _, l := range swept {
		fmt.Fprintf(stderr, "opcert: %s\n", l)
	}
	ns := cluster.RunNamespace(id)
	g := cluster.NewGuard(base, id, ns, objects, cluster.KindPolicy{Declared: kinds, Allowed: c.allowKinds})
	_, wall := wallTime(plans, scale)
	started := time.Now()
	rec := cluster.Record{ID: id, Started: started, Deadline: cluster.DeadlineAfter(started, wall), Owner: cluster.Self(),
		Kinds: kinds, Replicas: replicas}
	if err := createRecord(pre, g, rec); err != nil {
		return nil, nil, envError{fmt.Errorf("creating the run's namespace %s: %w", ns, err)}
	}
	fmt.Fprintf(stderr, "opcert: run %s: everything opcert creates is labelled %s=%s (namespace %s)\n", id, cluster.RunLabel, id, ns)
	note := fmt.Sprintf("scaling back the Deployments the run scaled, deleting what it created on the cluster (at most %s) and leaving the report directory as it was",
		cluster.CleanupTimeout)
	interruptNote.Store(&note)
	ctx, stop := context.WithCancelCause(parent)
	return &target{
		api: g,
		env: reports.Environment{KubeVersion: version.GitVersion, Startup: time.Since(start), Cluster: redact.URLs(cfg.Host) + " (context " + ctxName + ")"},
		options: func(i int, opts conformance.Options) conformance.Options {
			opts.Prefix, opts.Cluster = fmt.Sprintf("%s-%02d-", ns, i+1), cfg
			return opts
		},
		close: func() {
			stop(nil)
			fmt.Fprintf(stderr, "opcert: cleaning up run %s on the cluster (at most %s)\n", id, cluster.CleanupTimeout)
			deleted, left := g.Cleanup(cluster.CleanupTimeout)
			fmt.Fprintf(stderr, "opcert: deleted the %d objects run %s created\n", deleted, id)
			for _, l := range left {
				fmt.Fprintf(stderr, "opcert: left on the cluster: %s\n", l)
			}
		},
	}, ctx, nil
}

// preflight checks, reading only, that the runs' create steps make only
// what the run may create (cluster_kinds.go), that the cluster serves the
// kinds the runs work on and that the kubeconfig's user has every right
// they need. It returns the cluster-scoped kinds the runs may create
// besides Namespaces (the mechanisms', and the create steps' that
// --allow-disruption=KIND allows), for the run's record.
func (cf *clusterFlags) preflight(ctx context.Context, c client.Client, plans []plan, objects []cluster.Ref) ([]schema.GroupKind, error) {
	scopes := map[schema.GroupKind]bool{}
	namespaced := func(gvk schema.GroupVersionKind) (bool, error) {
		m, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if meta.IsNoMatchError(err) {
			return true, nil // not served: rights says so, with the step
		}
		if err != nil {
			return false, err
		}
		scopes[gvk.GroupKind()] = m.Scope.Name() == meta.RESTScopeNameNamespace
		return scopes[gvk.GroupKind()], nil
	}
	creations := cf.creations(plans)
	refused, err := refusedCreates(creations, namespaced)
	if err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		return nil, cf.refusedError(refused)
	}
	var record []schema.GroupKind
	for _, p := range plans {
		record = append(record, clustered(p.m).ClusterKinds()...)
	}
	var sweep []cluster.Permission
	for _, cr := range creations {
		gk := cr.gvk.GroupKind()
		if namespaced, known := scopes[gk]; !known || namespaced || gk == namespaceGK || slices.Contains(record, gk) {
			continue
		}
		record = append(record, gk) // allowed by --allow-disruption=KIND
		gr, err := resource(c, cr.gvk, "which "+cr.where+" creates")
		if err != nil {
			return nil, err
		}
		// The next run lists it to sweep what a killed run left.
		sweep = append(sweep, cluster.Permission{Verb: "list", Group: gr.Group, Resource: gr.Resource})
	}
	slices.SortFunc(record, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(record), rights(ctx, c, plans, objects, sweep)
}

// rights checks that the kubeconfig's user has every right the runs need,
// more included.
func rights(ctx context.Context, c client.Client, plans []plan, objects []cluster.Ref, more []cluster.Permission) error {
	var kinds, creates []cluster.GroupResource
	for _, p := range plans {
		gr, err := resource(c, conformance.ExpectedKind(p.m.Name()), fmt.Sprintf("which mechanism %s works on", p.m.Name()))
		if err != nil {
			return err
		}
		kinds = append(kinds, gr)
		for _, st := range p.sc.Steps {
			if st.Create == nil {
				continue
			}
			api, _ := st.Create["apiVersion"].(string)
			kind, _ := st.Create["kind"].(string)
			gr, err := resource(c, schema.FromAPIVersionAndKind(api, kind), fmt.Sprintf("which %s:%d creates", p.sc.Source, st.Line))
			if err != nil {
				return err
			}
			creates = append(creates, gr)
		}
	}
	var namespaces []string
	for _, r := range objects {
		if r.Kind == deploymentKind && !slices.Contains(namespaces, r.Namespace) {
			namespaces = append(namespaces, r.Namespace)
		}
	}
	needs := append(cluster.Needs(kinds, creates, namespaces), more...)
	for _, p := range plans {
		more, err := access(c, p)
		if err != nil {
			return err
		}
		needs = append(needs, more...)
	}
	missing, err := cluster.Missing(ctx, c, dedupe(needs))
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return cluster.MissingError("", missing)
	}
	return nil
}

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind()

// access is the rights a plan's mechanism says its run needs beyond
// cluster.Needs (conformance.Clustered's Access), on kinds the cluster
// must serve.
func access(c client.Client, p plan) ([]cluster.Permission, error) {
	var out []cluster.Permission
	for _, a := range clustered(p.m).Access(p.sc, p.cast) {
		gr, err := resource(c, a.Kind, fmt.Sprintf("which mechanism %s reads or writes", p.m.Name()))
		if err != nil {
			return nil, err
		}
		for _, v := range a.Verbs {
			out = append(out, cluster.Permission{Verb: v, Group: gr.Group, Resource: gr.Resource, Subresource: a.Subresource,
				Namespace: a.Namespace, Role: a.Role})
		}
	}
	return out, nil
}

// dedupe keeps the first of each permission: plans share most of theirs.
func dedupe(ps []cluster.Permission) []cluster.Permission {
	seen := map[cluster.Permission]bool{}
	out := ps[:0:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// resource is the resource of a kind the cluster must serve.
func resource(c client.Client, gvk schema.GroupVersionKind, why string) (cluster.GroupResource, error) {
	m, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		hint := ""
		if gvk.Group == "config.openshift.io" {
			hint = fmt.Sprintf(" (kubectl apply -f fixtures/%ss.crd.yaml; opcert kind up installs it)", strings.ToLower(gvk.Kind))
		}
		return cluster.GroupResource{}, fmt.Errorf("the cluster does not serve %s (%s), %s: install its CRD%s: %w", gvk.Kind, gvk.GroupVersion(), why, hint, err)
	}
	return cluster.GroupResource{Group: m.Resource.Group, Resource: m.Resource.Resource}, nil
}

// deploymentReplicas reads the scale of every Deployment the runs may
// touch: one missing is the input's fault, found before anything is
// written, unless the subjects make it during the run (an operand).
func deploymentReplicas(ctx context.Context, c client.Client, objects []cluster.Ref, made map[cluster.Ref]bool) (map[string]int32, error) {
	out := map[string]int32{}
	for _, r := range objects {
		if r.Kind != deploymentKind || made[r] {
			continue
		}
		sc := &autoscalingv1.Scale{}
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name}}
		if err := c.SubResource("scale").Get(ctx, dep, sc); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, fmt.Errorf("the Deployment %s/%s is not on the cluster: deploy the operators first (a deployment:NAMESPACE/NAME subject names one Deployment per operator of the scenario, {name} replaced)", r.Namespace, r.Name)
			}
			return nil, err
		}
		out[r.Namespace+"/"+r.Name] = sc.Spec.Replicas
	}
	return out, nil
}

// createRecord creates the run's namespace, its record (cluster.Record):
// who runs it, until when, the cluster-scoped kinds it may create and the
// replicas of the Deployments it may scale, so that the next run sweeps
// what a run killed outright (SIGKILL) left, and the Deployments can be
// scaled back by hand.
func createRecord(ctx context.Context, c client.Client, r cluster.Record) error {
	obj, err := r.Namespace()
	if err != nil {
		return err
	}
	return c.Create(ctx, obj)
}

// runID is 8 random hex digits: a valid label value and name part.
func runID() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
