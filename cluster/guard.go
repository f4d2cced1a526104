package cluster

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// RunLabel is on everything a run creates on a cluster; its value is the
// run's ID. `kubectl get ns -l opcert.io/run` finds the runs a killed
// opcert left, whose records name the other kinds to look at (Sweep does).
const RunLabel = "opcert.io/run"

// Ref names one object on the cluster.
type Ref struct {
	// Kind is the object's group and kind.
	Kind schema.GroupKind
	// Namespace and Name name the object (empty namespace: cluster-scoped).
	Namespace, Name string
}

// String is Kind.group and namespace/name (or name), as messages name
// an object.
func (r Ref) String() string {
	kind := r.Kind.Kind
	if r.Kind.Group != "" {
		kind += "." + r.Kind.Group
	}
	if r.Namespace != "" {
		return kind + " " + r.Namespace + "/" + r.Name
	}
	return kind + " " + r.Name
}

// Guard is the client of a cluster-mode run: every write goes through it,
// and it lets through only
//
//   - creating an object of a kind its KindPolicy lets it create, named
//     under the run's prefix (cluster-scoped) or in a namespace the run
//     created, which it labels RunLabel=<run id> and remembers for
//     Cleanup;
//   - writing to an object the run created (or one in its namespaces);
//   - writing to the objects of Allowed: the ones listed to the user and
//     allowed by --allow-disruption (a team's ClusterOperators, the scale
//     of its Deployments), and creating one of them that is missing.
//
// Anything else is refused with a Forbidden error before it reaches the
// cluster, so that a bug in opcert, or a scenario, cannot write to what
// the user did not agree to. Reads pass.
type Guard struct {
	client.WithWatch
	// ID is the run's ID (RunLabel's value); Prefix is what the names of
	// the cluster-scoped objects the run creates begin with.
	ID, Prefix string

	allowed map[Ref]bool
	policy  KindPolicy
	mu      sync.Mutex
	created []made
	ownNS   map[string]bool
}

// made is an object the run created, with the version to delete it by.
type made struct {
	Ref
	version string
}

// NewGuard guards writes through base for the run id, whose
// cluster-scoped objects are named prefix...; allowed are the objects the
// user agreed it may write although it did not create them, policy the
// kinds it may create.
func NewGuard(base client.WithWatch, id, prefix string, allowed []Ref, policy KindPolicy) *Guard {
	g := &Guard{ID: id, Prefix: prefix, allowed: map[Ref]bool{}, policy: policy, ownNS: map[string]bool{}}
	for _, r := range allowed {
		g.allowed[r] = true
	}
	g.WithWatch = interceptor.NewClient(base, interceptor.Funcs{
		Create: g.create,
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if err := g.check(c, obj, "update"); err != nil {
				return err
			}
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			if err := g.check(c, obj, "patch"); err != nil {
				return err
			}
			return c.Patch(ctx, obj, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if err := g.check(c, obj, "delete"); err != nil {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		},
		DeleteAllOf: func(_ context.Context, c client.WithWatch, obj client.Object, _ ...client.DeleteAllOfOption) error {
			return g.refuse(c, obj, "delete all of", "opcert deletes objects one by one")
		},
		Apply: func(context.Context, client.WithWatch, runtime.ApplyConfiguration, ...client.ApplyOption) error {
			return apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf("opcert (cluster mode) does not apply objects server-side"))
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, body client.Object, opts ...client.SubResourceCreateOption) error {
			if err := g.check(c, obj, "create "+sub+" of"); err != nil {
				return err
			}
			return c.SubResource(sub).Create(ctx, obj, body, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			if err := g.check(c, obj, "update "+sub+" of"); err != nil {
				return err
			}
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			if err := g.check(c, obj, "patch "+sub+" of"); err != nil {
				return err
			}
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
		SubResourceApply: func(context.Context, client.Client, string, runtime.ApplyConfiguration, ...client.SubResourceApplyOption) error {
			return apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf("opcert (cluster mode) does not apply objects server-side"))
		},
	})
	return g
}

// ref names obj, its kind from the client's scheme (or the object).
func ref(c client.Client, obj client.Object) (Ref, error) {
	r, _, err := refVersion(c, obj)
	return r, err
}

func refVersion(c client.Client, obj client.Object) (Ref, string, error) {
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return Ref{}, "", err
	}
	return Ref{Kind: gvk.GroupKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}, gvk.Version, nil
}

func (g *Guard) create(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	r, version, err := refVersion(c, obj)
	if err != nil {
		return err
	}
	namespaced, err := c.IsObjectNamespaced(obj)
	if err != nil {
		return err
	}
	name := obj.GetName()
	if name == "" {
		name = obj.GetGenerateName()
	}
	switch why := g.policy.Refuses(r.Kind, namespaced); {
	case g.allowed[r]:
		// An object the user agreed the run may write, which it creates
		// when missing (the admin's ConfigMap a step writes): deleted at
		// the end as the run's own, since it was not there before.
	case why != "":
		return g.refuse(c, obj, "create", why)
	case namespaced && !g.ownNamespace(r.Namespace):
		return g.refuse(c, obj, "create", fmt.Sprintf("namespace %q was not created by this run; a scenario creates its namespaces first", r.Namespace))
	case !namespaced && !strings.HasPrefix(name, g.Prefix):
		return g.refuse(c, obj, "create", fmt.Sprintf("a cluster-scoped object the run creates is named under the run's prefix %q", g.Prefix))
	case !namespaced && r.Kind != namespaceKind && !slices.Contains(g.policy.Declared, r.Kind):
		return g.refuse(c, obj, "create", "the run's record does not name its kind, so that the next run could not find it after a SIGKILL")
	}
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[RunLabel] = g.ID
	obj.SetLabels(labels)
	if err := c.Create(ctx, obj, opts...); err != nil {
		return err
	}
	r.Name = obj.GetName() // the server may have generated it
	g.mu.Lock()
	defer g.mu.Unlock()
	g.created = append(g.created, made{r, version})
	if r.Kind == namespaceKind {
		g.ownNS[r.Name] = true
	}
	return nil
}

func (g *Guard) ownNamespace(ns string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ownNS[ns]
}

// check lets a write to obj through if the run created it, it is in a
// namespace the run created, or the user allowed it.
func (g *Guard) check(c client.Client, obj client.Object, verb string) error {
	r, err := ref(c, obj)
	if err != nil {
		return err
	}
	if g.allowed[r] || g.ownNamespace(r.Namespace) {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, m := range g.created {
		if m.Ref == r {
			return nil
		}
	}
	return g.refuse(c, obj, verb, "opcert did not create it and it is not among the objects the run was allowed to disrupt")
}

// refuse is the error of a write the guard does not let through: a
// Forbidden status, as the API server would answer, so that a scenario's
// step that asks for it is the scenario's fault (exit 2).
func (g *Guard) refuse(c client.Client, obj client.Object, verb, why string) error {
	r, _ := ref(c, obj)
	return apierrors.NewForbidden(schema.GroupResource{Group: r.Kind.Group, Resource: r.Kind.Kind}, obj.GetName(),
		fmt.Errorf("opcert (cluster mode) refused to %s %s: %s", verb, r, why))
}

// Created lists what the run created, in order.
func (g *Guard) Created() []Ref {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]Ref, len(g.created))
	for i, m := range g.created {
		out[i] = m.Ref
	}
	return out
}
