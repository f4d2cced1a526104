package cluster

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RBACFile is the least-privilege role cluster mode needs, shipped with
// opcert; errors about missing rights point to it.
const RBACFile = "config/rbac/opcert-cluster.yaml"

// Permission is one right cluster mode needs: a verb on a resource (and
// subresource), cluster-wide or in one namespace; Role names the
// ClusterRole of config/rbac that grants it, which a missing right's
// message names.
type Permission struct {
	// Verb, Group, Resource and Subresource say what is done to what; Namespace where (empty: cluster-wide).
	Verb, Group, Resource, Subresource, Namespace string
	// Role names the ClusterRole that grants it; empty when none of RBACFile does.
	Role string
}

// The ClusterRoles of RBACFile.
const (
	RoleCluster = "opcert-cluster"       // bound cluster-wide
	RoleScale   = "opcert-cluster-scale" // bound in each namespace of a Deployment subject
)

// String is the permission as messages give it: verb, resource and
// where it is needed.
func (p Permission) String() string {
	res := p.Resource
	if p.Subresource != "" {
		res += "/" + p.Subresource
	}
	if p.Group != "" {
		res += "." + p.Group
	}
	where := "cluster-wide"
	if p.Namespace != "" {
		where = "in namespace " + p.Namespace
	}
	if p.Role != "" {
		where += " (ClusterRole " + p.Role + ")"
	}
	return fmt.Sprintf("%s %s %s", p.Verb, res, where)
}

// Needs is what a cluster-mode run asks of the cluster (what RBACFile
// grants): its namespace made and removed, and the namespaces of earlier
// runs listed (Sweep); on each kind a mechanism
// works on (resources, e.g. clusteroperators in config.openshift.io),
// reading and watching, creating and deleting its own objects, writing
// them and their status; in each namespace of a Deployment subject,
// reading and patching the Deployments' scale (nothing else of them); and
// creating and deleting the kinds a scenario's create steps name (create).
func Needs(kinds, create []GroupResource, deployNamespaces []string) []Permission {
	var out []Permission
	for _, v := range []string{"get", "list", "create", "delete"} {
		out = append(out, Permission{Verb: v, Resource: "namespaces", Role: RoleCluster})
	}
	for _, k := range kinds {
		for _, v := range []string{"get", "list", "watch", "create", "update", "patch", "delete"} {
			out = append(out, Permission{Verb: v, Group: k.Group, Resource: k.Resource, Role: RoleCluster})
		}
		for _, v := range []string{"update", "patch"} {
			out = append(out, Permission{Verb: v, Group: k.Group, Resource: k.Resource, Subresource: "status", Role: RoleCluster})
		}
	}
	for _, k := range create {
		for _, v := range []string{"create", "delete"} {
			out = append(out, Permission{Verb: v, Group: k.Group, Resource: k.Resource})
		}
	}
	for _, ns := range deployNamespaces {
		for _, v := range []string{"get", "patch"} {
			out = append(out, Permission{Verb: v, Group: "apps", Resource: "deployments", Subresource: "scale", Namespace: ns, Role: RoleScale})
		}
	}
	return dedupe(out)
}

// GroupResource is a resource in an API group (clusteroperators in
// config.openshift.io).
type GroupResource struct {
	// Group is the API group (empty: the core group), Resource the plural resource name.
	Group, Resource string
}

func dedupe(ps []Permission) []Permission {
	seen := map[Permission]bool{}
	var out []Permission
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// Missing asks the API server, as the kubeconfig's user, which of perms it
// lacks (one SelfSubjectAccessReview each, which every authenticated user
// may create): before anything is written, so that a run never stops half
// way for want of a right.
func Missing(ctx context.Context, c client.Client, perms []Permission) ([]Permission, error) {
	var out []Permission
	for _, p := range perms {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: p.Verb, Group: p.Group, Resource: p.Resource,
				Subresource: p.Subresource, Namespace: p.Namespace}}}
		if err := c.Create(ctx, r); err != nil {
			return nil, fmt.Errorf("asking the cluster whether opcert may %s: %w", p, err)
		}
		if !r.Status.Allowed {
			out = append(out, p)
		}
	}
	return out, nil
}

// MissingError says which rights are missing and where to find them.
func MissingError(user string, missing []Permission) error {
	lines := make([]string, len(missing))
	for i, p := range missing {
		lines[i] = "  " + p.String()
	}
	return fmt.Errorf("the cluster's user%s lacks %d permissions cluster mode needs:\n%s\nbind the ClusterRoles named, from config/rbac (%s: %s cluster-wide, %s in each namespace of a Deployment subject; a mechanism's own file for its roles), or use a kubeconfig that has them",
		user, len(missing), strings.Join(lines, "\n"), RBACFile, RoleCluster, RoleScale)
}
