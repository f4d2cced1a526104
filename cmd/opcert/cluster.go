package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
)

// Cluster mode: opcert run --kubeconfig PATH plays the runs on that
// cluster instead of its own API server, in real time. What it creates
// there is labelled opcert.io/run=<id>, lives in the namespace opcert-<id>
// or is named opcert-<id>-NN-... (cluster-scoped), and is deleted at the
// end, Ctrl-C included; what it did not create it writes only as listed
// by the mechanisms (Mechanism.Touches) and allowed by --allow-disruption.

type clusterFlags struct {
	kubeconfig, context string
	allowDisruption     bool
}

func (c *clusterFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.kubeconfig, "kubeconfig", "", "run on the cluster of this kubeconfig file instead of opcert's own API server (cluster mode; only this file is read, never $KUBECONFIG)")
	f.StringVar(&c.context, "context", "", "the kubeconfig context to use (default: its current context)")
	f.BoolVar(&c.allowDisruption, "allow-disruption", false, "cluster mode: let the run write to objects opcert did not create (the detector challenging a team's ClusterOperators, steps scaling its Deployments); without it such a run is refused and what it would touch is listed")
}

func (c *clusterFlags) on() bool { return c.kubeconfig != "" }

// check refuses, before any work, what cannot run where the flags say.
// named says the scenarios were named (files, --scenario): on a cluster
// they must be, since each plays in real time (the 24-hour fleet would
// take 24h times the scale) and not every mechanism can play there.
func (c *clusterFlags) check(plans []plan, named bool) error {
	if !c.on() {
		switch {
		case c.context != "":
			return errors.New("--context needs --kubeconfig (cluster mode)")
		case c.allowDisruption:
			return errors.New("--allow-disruption is for runs on a cluster: give --kubeconfig too")
		}
		for _, p := range plans {
			if r, s, ok := castHas[conformance.Deployment](p.cast); ok {
				return fmt.Errorf("--subject %s=%s: a Deployment plays its role on a cluster: give --kubeconfig (cluster mode)", r, s)
			}
		}
		return nil
	}
	if !named {
		var can []string
		for _, p := range plans {
			if p.m.Touches != nil {
				can = append(can, p.sc.Name)
			}
		}
		return fmt.Errorf("on a cluster, name the scenarios to play (--scenario NAME, or files): each plays in real time, scaled by --time-scale; built-ins that can play on a cluster: %s", strings.Join(can, ", "))
	}
	for _, p := range plans {
		if p.m.Touches == nil {
			return fmt.Errorf("%s: mechanism %s cannot be played on a cluster (its world is simulated by opcert); choose scenarios of a mechanism that can (--scenario, or scenario files)", p.sc.Source, p.m.Name)
		}
		if r, s, ok := castHas[conformance.Process](p.cast); ok {
			return fmt.Errorf("--subject %s=%s: an executable runs against opcert's own API server (process mode); on a cluster, deploy it and give deployment:NAMESPACE/NAME", r, s)
		}
	}
	return nil
}

// castHas finds a role of the cast played by a T.
func castHas[T any](cast conformance.Cast) (role, subject string, ok bool) {
	for r, s := range cast {
		if _, ok := s.Impl.(T); ok {
			return r, s.Name, true
		}
	}
	return "", "", false
}

// touches is what the plans would do to objects opcert did not create,
// grouped by object in the order they first appear.
func touches(plans []plan) (objects []cluster.Ref, why map[cluster.Ref][]string) {
	why = map[cluster.Ref][]string{}
	for _, p := range plans {
		for _, t := range p.m.Touches(p.sc, p.cast) {
			r := cluster.Ref{Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}
			if _, seen := why[r]; !seen {
				objects = append(objects, r)
			}
			why[r] = append(why[r], t.Why)
		}
	}
	return objects, why
}

func printTouches(w io.Writer, plans []plan) {
	objects, why := touches(plans)
	for _, r := range objects {
		fmt.Fprintf(w, "  %s\n", r)
		for _, y := range why[r] {
			fmt.Fprintf(w, "    - %s\n", y)
		}
	}
}

// refuse is the error of a run that would touch what opcert did not
// create, without --allow-disruption: it lists all of it.
func (c *clusterFlags) refuse(plans []plan) error {
	if !c.on() || c.allowDisruption {
		return nil
	}
	if objects, _ := touches(plans); len(objects) == 0 {
		return nil
	}
	var b strings.Builder
	printTouches(&b, plans)
	return fmt.Errorf("refusing to run on the cluster of %s without --allow-disruption: the run would write to these objects, which opcert did not create:\n%s"+
		"nothing was written; give --allow-disruption if the cluster may be disrupted (a CI cluster: opcert kind up)", c.kubeconfig, b.String())
}

// printPlan is the dry run's plan, and in cluster mode how long it takes
// and what it would touch.
func (c *clusterFlags) printPlan(w io.Writer, plans []plan, out string, scale float64) error {
	if err := printPlan(w, plans, out); err != nil || !c.on() {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", realTime(plans, scale))
	if objects, _ := touches(plans); len(objects) == 0 {
		_, err := fmt.Fprintln(w, "\non the cluster, the runs write only to objects opcert creates (deleted at the end)")
		return err
	}
	fmt.Fprintln(w, "\non the cluster, the runs write to these objects opcert did not create (needs --allow-disruption):")
	printTouches(w, plans)
	return nil
}

// realTime says how long runs on a cluster take: they play in real time,
// so the API calls estimated say nothing of it.
func realTime(plans []plan, scale float64) string {
	var d time.Duration
	for _, p := range plans {
		d += p.sc.Duration.Duration
	}
	wall := time.Duration(float64(d) * scale)
	return fmt.Sprintf("on a cluster the runs play in real time: about %s of wall time (%s of scenarios x --time-scale %g)", wall.Round(time.Second), d, scale)
}

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
	fmt.Fprintf(stderr, "opcert: cluster mode: %s (context %s)\n", cfg.Host, ctxName)
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
		return nil, nil, envError{fmt.Errorf("cannot reach the cluster at %s (context %s): %w", cfg.Host, ctxName, err)}
	}
	base, err := client.NewWithWatch(cfg, client.Options{Scheme: cluster.Scheme()})
	if err != nil {
		return nil, nil, err
	}
	objects, _ := touches(plans)
	if err := preflight(pre, base, plans, objects); err != nil {
		if pre.Err() != nil && parent.Err() != nil {
			return nil, nil, context.Cause(parent)
		}
		return nil, nil, err
	}
	replicas, err := deploymentReplicas(pre, base, objects)
	if err != nil {
		return nil, nil, err
	}
	id, err := runID()
	if err != nil {
		return nil, nil, err
	}
	ns := "opcert-" + id
	g := cluster.NewGuard(base, id, ns, objects)
	if err := createNamespace(pre, g, ns, replicas); err != nil {
		return nil, nil, envError{fmt.Errorf("creating the run's namespace %s: %w", ns, err)}
	}
	fmt.Fprintf(stderr, "opcert: run %s: everything opcert creates is labelled %s=%s (namespace %s)\n", id, cluster.RunLabel, id, ns)
	note := fmt.Sprintf("scaling back the Deployments the run scaled, deleting what it created on the cluster (at most %s) and leaving the report directory as it was",
		cluster.CleanupTimeout)
	interruptNote.Store(&note)
	ctx, stop := context.WithCancelCause(parent)
	return &target{
		api: g,
		env: reports.Environment{KubeVersion: version.GitVersion, Startup: time.Since(start), Cluster: cfg.Host + " (context " + ctxName + ")"},
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

// preflight checks, reading only, that the cluster serves the kinds the
// runs work on and that the kubeconfig's user has every right they need.
func preflight(ctx context.Context, c client.Client, plans []plan, objects []cluster.Ref) error {
	var kinds, creates []cluster.GroupResource
	for _, p := range plans {
		gr, err := resource(c, p.m.Expects, fmt.Sprintf("which mechanism %s works on", p.m.Name))
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
	missing, err := cluster.Missing(ctx, c, cluster.Needs(kinds, creates, namespaces))
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		return cluster.MissingError("", missing)
	}
	return nil
}

var deploymentKind = appsv1.SchemeGroupVersion.WithKind("Deployment").GroupKind()

// resource is the resource of a kind the cluster must serve.
func resource(c client.Client, gvk schema.GroupVersionKind, why string) (cluster.GroupResource, error) {
	m, err := c.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		hint := ""
		if gvk.Group == "config.openshift.io" {
			hint = " (kubectl apply -f fixtures/clusteroperators.crd.yaml; opcert kind up installs it)"
		}
		return cluster.GroupResource{}, fmt.Errorf("the cluster does not serve %s (%s), %s: install its CRD%s: %w", gvk.Kind, gvk.GroupVersion(), why, hint, err)
	}
	return cluster.GroupResource{Group: m.Resource.Group, Resource: m.Resource.Resource}, nil
}

// deploymentReplicas reads the scale of every Deployment the runs may
// scale: one missing is the input's fault, found before anything is
// written.
func deploymentReplicas(ctx context.Context, c client.Client, objects []cluster.Ref) (map[string]int32, error) {
	out := map[string]int32{}
	for _, r := range objects {
		if r.Kind != deploymentKind {
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

// createNamespace creates the run's namespace. Its annotations say when
// the run began and the replicas of the Deployments it may scale, so that
// a run killed outright (SIGKILL) can be undone by hand.
func createNamespace(ctx context.Context, c client.Client, ns string, replicas map[string]int32) error {
	restore, err := json.Marshal(replicas)
	if err != nil {
		return err
	}
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Annotations: map[string]string{
		"opcert.io/started":  time.Now().UTC().Format(time.RFC3339),
		"opcert.io/replicas": string(restore),
	}}}
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
