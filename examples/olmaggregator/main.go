// Command olmaggregator is an example status probe operator of seed 002,
// written from the seed alone (controller-runtime, nothing of opcert's):
// it keeps one operator's Probe, named after the operator's CSV in its
// namespace. Once an owned CRD carries an
// olm.operatorframework.io/condition.Upgradeable or .Important annotation,
// it creates the Probe (manager crdAnnotations) with a probe resource per
// annotated CRD, keeps that spec what the annotations say, and aggregates
// the CRs' conditions into its status: Upgradeable False when a CR's
// Upgradeable expression says it may not be upgraded, and each CR that
// blocks or has a True condition its Important expression names, with
// those reasons. A Probe with no spec or managed by the operator it
// leaves alone.
//
//	olmaggregator --name foo-operator.v1.0.0 --namespace operators --crds foos.example.com
//	olmaggregator ... --namespaces default,team-a --reading blocks
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func main() {
	var probe types.NamespacedName
	var crds, namespaces, reading string
	flag.StringVar(&probe.Name, "name", "", "the operator's CSV: the name of its Probe")
	flag.StringVar(&probe.Namespace, "namespace", "", "the operator's namespace, where its Probe is")
	flag.StringVar(&crds, "crds", "", "the CRDs the operator owns, comma separated: foos.example.com")
	flag.StringVar(&namespaces, "namespaces", "", "the namespaces whose CRs count, comma separated (default: every namespace)")
	flag.StringVar(&reading, "reading", "holds", "how an Upgradeable expression reads: holds (upgradeable while it holds, the seed's example) or blocks (not upgradeable while it holds, the test plan's words)")
	flag.Parse()
	if probe.Name == "" || probe.Namespace == "" || crds == "" || (reading != "holds" && reading != "blocks") {
		fmt.Fprintln(os.Stderr, "olmaggregator: give --name, --namespace and --crds, and --reading holds or blocks")
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	a := &Aggregator{Probe: probe, CRDs: split(crds), Namespaces: split(namespaces), BlockWhenTrue: reading == "blocks"}
	if err := run(a); err != nil {
		fmt.Fprintln(os.Stderr, "olmaggregator:", err)
		os.Exit(1)
	}
}

// split reads a comma-separated list; "" is none.
func split(s string) []string { return strings.FieldsFunc(s, func(r rune) bool { return r == ',' }) }

// run watches the owned CRDs, the Probe and the CRs of the owned CRDs'
// kinds, each event a request for the one Probe; the CRDs' first listing
// is its first look.
func run(a *Aggregator) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return err
	}
	// Read past the cache: a look right after its own write must see it.
	a.Client, a.Reader = client.WithFieldOwner(mgr.GetClient(), "olmaggregator"), mgr.GetAPIReader()
	kinds, err := crKinds(context.Background(), a)
	if err != nil {
		return err
	}
	toProbe := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{{NamespacedName: a.Probe}}
	})
	b := ctrl.NewControllerManagedBy(mgr).Named("olmaggregator").
		Watches(watched(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}), toProbe,
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return slices.Contains(a.CRDs, o.GetName()) }))).
		Watches(watched(probeGVK), toProbe,
			builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool { return client.ObjectKeyFromObject(o) == a.Probe })))
	for _, k := range kinds {
		b = b.Watches(watched(k), toProbe, builder.WithPredicates(predicate.NewPredicateFuncs(func(o client.Object) bool {
			return len(a.Namespaces) == 0 || slices.Contains(a.Namespaces, o.GetNamespace())
		})))
	}
	if err := b.Complete(a); err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// crKinds are the kinds of the owned CRDs' CRs, read once at the start.
func crKinds(ctx context.Context, a *Aggregator) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	for _, name := range a.CRDs {
		crd := watched(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
		if err := a.Reader.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return nil, fmt.Errorf("reading CRD %s: %w", name, err)
		}
		gvk, _ := servedKind(crd)
		out = append(out, gvk)
	}
	return out, nil
}

func watched(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}
