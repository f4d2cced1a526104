package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/cluster"
	"github.com/opcert/opcert/scenarios"
)

// What a run may create on a cluster, by kind (cluster.KindPolicy): the
// create steps of the scenarios are checked before anything is written,
// twice: before reaching the cluster, for the kinds that change its
// security whatever their scope (RBAC, admission, CRDs, ...), and once
// the cluster says each kind's scope, for every other cluster-scoped kind
// no mechanism of the run declares. cluster.Guard checks each create again
// when it is made.

// creation is what a scenario's create step makes.
type creation struct {
	where string // file:line
	gvk   schema.GroupVersionKind
	// namespace and name as the scenario gives them (the run's prefix
	// is added on the cluster).
	namespace, name string
	policy          cluster.KindPolicy
	// own are the namespaces the run has created when the step is
	// played: its world's and those of the Namespace steps before it.
	own []string
}

func (c creation) String() string {
	obj := c.name
	if c.namespace != "" {
		obj = c.namespace + "/" + c.name
	}
	return fmt.Sprintf("%s: %s %s", c.where, cluster.KindString(c.gvk.GroupKind()), obj)
}

// creations lists the create steps of the plans, each with the kinds its
// run may create.
func (c *clusterFlags) creations(plans []plan) []creation {
	var out []creation
	for _, p := range plans {
		cl := clustered(p.m)
		policy := cluster.KindPolicy{Declared: cl.ClusterKinds(), Allowed: c.allowKinds}
		own := cl.Namespaces(p.sc)
		// Steps play in the order of their times, those at one time in
		// the order of the file.
		steps := slices.Clone(p.sc.Steps)
		slices.SortStableFunc(steps, func(a, b scenarios.Step) int { return cmp.Compare(a.Time, b.Time) })
		for _, st := range steps {
			if st.Create == nil {
				continue
			}
			api, _ := st.Create["apiVersion"].(string)
			kind, _ := st.Create["kind"].(string)
			meta, _ := st.Create["metadata"].(map[string]any)
			ns, _ := meta["namespace"].(string)
			name, _ := meta["name"].(string)
			if name == "" {
				name, _ = meta["generateName"].(string)
			}
			cr := creation{where: fmt.Sprintf("%s:%d", p.sc.Source, st.Line), gvk: schema.FromAPIVersionAndKind(api, kind),
				namespace: ns, name: name, policy: policy, own: slices.Clone(own)}
			out = append(out, cr)
			if cr.gvk.GroupKind() == namespaceGK {
				own = append(own, name)
			}
		}
	}
	return out
}

// refusedCreates says, one line each, the create steps the run may not
// play. namespaced tells a kind's scope; nil (before reaching the
// cluster) takes every kind for namespaced, so that only the kinds
// refused whatever their scope are.
func refusedCreates(creations []creation, namespaced func(schema.GroupVersionKind) (bool, error)) ([]string, error) {
	var out []string
	for _, cr := range creations {
		scoped := true
		if namespaced != nil {
			var err error
			if scoped, err = namespaced(cr.gvk); err != nil {
				return nil, err
			}
		}
		why := cr.policy.Refuses(cr.gvk.GroupKind(), scoped)
		if why == "" && namespaced != nil && scoped {
			why = cr.notOwnNamespace()
		}
		if why != "" {
			out = append(out, fmt.Sprintf("%s: %s", cr, why))
		}
	}
	return out, nil
}

// notOwnNamespace says why a namespaced object's step is refused for its
// namespace, or "".
func (c creation) notOwnNamespace() string {
	switch {
	case c.namespace == "":
		return "a namespaced kind: give metadata.namespace, a namespace the run creates"
	case !slices.Contains(c.own, c.namespace):
		return fmt.Sprintf("namespace %q is not one the run creates (a Namespace step before it, or its mechanism's world): a run writes only in its own namespaces", c.namespace)
	}
	return ""
}

// refusedError is the error of a run whose create steps are refused.
func (c *clusterFlags) refusedError(refused []string) error {
	return fmt.Errorf("refusing to run on the cluster of %s: these create steps would change the cluster's security or what it serves to everyone:\n  %s\n"+
		"nothing was written; a run creates namespaced objects in its own namespaces and only the cluster-scoped kinds its mechanisms declare",
		c.kubeconfig, strings.Join(refused, "\n  "))
}

// printCreates is the dry run's account of what the runs would create on
// the cluster, and of what would be refused.
func (c *clusterFlags) printCreates(w io.Writer, plans []plan) {
	fmt.Fprintf(w, "\non the cluster, each run creates (labelled %s=<run id>, deleted at the end, swept by the next run if opcert is killed):\n", cluster.RunLabel)
	fmt.Fprintf(w, "  Namespace %s: the run's own, the record of what it may create\n", cluster.RunNamespace("<run id>"))
	var mechs []string
	for _, p := range plans {
		if slices.Contains(mechs, p.m.Name()) {
			continue
		}
		mechs = append(mechs, p.m.Name())
		for _, gk := range clustered(p.m).ClusterKinds() {
			fmt.Fprintf(w, "  %s objects named %s-NN-...: what mechanism %s's world creates\n", cluster.KindString(gk), cluster.RunNamespace("<run id>"), p.m.Name())
		}
	}
	var refused []string
	for _, cr := range c.creations(plans) {
		gk := cr.gvk.GroupKind()
		why := cr.policy.Refuses(gk, true)
		switch {
		case why != "":
			refused = append(refused, fmt.Sprintf("%s: %s", cr, why))
		case gk == namespaceGK:
			fmt.Fprintf(w, "  %s: a namespace of the run, named under its prefix\n", cr)
		case slices.Contains(cr.policy.Declared, gk):
			fmt.Fprintf(w, "  %s: cluster-scoped, named under the run's prefix\n", cr)
		case cr.policy.Refuses(gk, false) == "":
			fmt.Fprintf(w, "  %s: allowed by --allow-disruption=KIND (named under the run's prefix, or in its namespaces)\n", cr)
		case cr.notOwnNamespace() != "":
			fmt.Fprintf(w, "  %s: refused before anything is written, whatever the cluster says of the kind: if namespaced, %s; if cluster-scoped, %s\n",
				cr, cr.notOwnNamespace(), cr.policy.Refuses(gk, false))
		default:
			fmt.Fprintf(w, "  %s: in a namespace of the run if the cluster serves the kind namespaced; refused before anything is written if it is cluster-scoped\n", cr)
		}
	}
	if len(refused) == 0 {
		return
	}
	fmt.Fprintln(w, "\nrefused: the run would exit 2 before writing anything, for these create steps:")
	for _, r := range refused {
		fmt.Fprintf(w, "  %s\n", r)
	}
}

var namespaceGK = schema.GroupKind{Kind: "Namespace"}
