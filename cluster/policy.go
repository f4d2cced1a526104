package cluster

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What a run may create on a cluster, by kind. A run creates:
//
//   - Namespaces under its prefix (its own), where it may create objects
//     of any namespaced kind but the sensitive ones (Roles and
//     RoleBindings, which grant rights; the kinds that run pods, which
//     may be privileged on a node);
//   - cluster-scoped objects of the kinds its mechanisms declare
//     (conformance.Clustered.ClusterKinds: a ClusterOperator, a
//     ClusterVersion), under its prefix.
//
// Anything else (RBAC, admission webhooks and policies, CRDs,
// APIServices, PriorityClasses, any other cluster-scoped kind) changes
// the cluster's security or every tenant's service: refused unless the
// user names the kind (--allow-disruption=KIND), and even then only under
// the run's prefix, labelled, deleted at the end and swept after a
// SIGKILL. The policy does not depend on names: a scenario names what it
// creates.

// KindPolicy decides which kinds a run may create.
type KindPolicy struct {
	// Declared are the cluster-scoped kinds the run's mechanisms create.
	Declared []schema.GroupKind
	// Allowed are the kinds the user named (--allow-disruption=KIND).
	Allowed []KindName
}

// KindName is a kind as a user names it: Kind alone (any group) or
// Kind.group, as kubectl prints it (ClusterRoleBinding.rbac.authorization.k8s.io).
type KindName struct {
	// Kind is the kind's name, Group its API group (empty: the core group).
	Kind, Group string
	// AnyGroup is true when the user gave Kind alone: it matches the kind in any group.
	AnyGroup bool
}

// ParseKindName reads a kind as a user names it; Kind is matched without
// regard to case.
func ParseKindName(s string) (KindName, error) {
	kind, group, dotted := strings.Cut(strings.TrimSpace(s), ".")
	if kind == "" || strings.ContainsAny(kind, "/= ") || dotted && group == "" {
		return KindName{}, fmt.Errorf("%q is not a kind: give Kind or Kind.group, e.g. PriorityClass or ClusterRoleBinding.rbac.authorization.k8s.io", s)
	}
	return KindName{Kind: kind, Group: group, AnyGroup: !dotted}, nil
}

// String is the kind as it was given: Kind, or Kind.group.
func (k KindName) String() string {
	if k.AnyGroup {
		return k.Kind
	}
	return k.Kind + "." + k.Group
}

// Matches tells whether gk is the kind named.
func (k KindName) Matches(gk schema.GroupKind) bool {
	return strings.EqualFold(k.Kind, gk.Kind) && (k.AnyGroup || k.Group == gk.Group)
}

// KindString names gk as kubectl does (Kind.group; Kind for the core group).
func KindString(gk schema.GroupKind) string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Kind + "." + gk.Group
}

// sensitiveGroups are the API groups whose every kind changes who may do
// what on the cluster, or what it serves, and why.
var sensitiveGroups = map[string]string{
	"rbac.authorization.k8s.io":    "RBAC: it grants rights on the cluster",
	"admissionregistration.k8s.io": "admission control: it can intercept, change or refuse writes anywhere in the cluster",
	"apiextensions.k8s.io":         "it changes the API the cluster serves to everyone",
	"apiregistration.k8s.io":       "it routes part of the cluster's API to another server",
	"scheduling.k8s.io":            "it can make the cluster's workloads be preempted",
	"certificates.k8s.io":          "it can mint credentials",
}

// podKinds run pods, which a manifest can make privileged on a node.
var podKinds = []schema.GroupKind{
	{Kind: "Pod"}, {Kind: "ReplicationController"},
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "ReplicaSet"},
	{Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
}

var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// Sensitive says why creating an object of gk changes the cluster's
// security, whatever its scope; "" for the kinds that do not by
// themselves. It needs no cluster: the dry run says it too.
func Sensitive(gk schema.GroupKind) string {
	if why, ok := sensitiveGroups[gk.Group]; ok {
		return why
	}
	if slices.Contains(podKinds, gk) {
		return "it runs pods, which its manifest may make privileged on a node"
	}
	return ""
}

// Refuses says why the run may not create an object of gk, namespaced as
// said, or "" if it may. Where it may is another matter (its namespaces,
// its prefix: the Guard's).
func (p KindPolicy) Refuses(gk schema.GroupKind, namespaced bool) string {
	if p.allowedByUser(gk) {
		return ""
	}
	hint := fmt.Sprintf("; --allow-disruption=%s allows it", KindString(gk))
	if why := Sensitive(gk); why != "" {
		return why + hint
	}
	if namespaced || gk == namespaceKind || slices.Contains(p.Declared, gk) {
		return ""
	}
	return "a cluster-scoped kind none of the run's mechanisms creates" + hint
}

func (p KindPolicy) allowedByUser(gk schema.GroupKind) bool {
	for _, k := range p.Allowed {
		if k.Matches(gk) {
			return true
		}
	}
	return false
}
