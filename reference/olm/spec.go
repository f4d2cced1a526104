package olm

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/probe"
	"github.com/opcert/opcert/reference/olm/expr"
)

// CRD is what the aggregator reads of an owned CustomResourceDefinition.
type CRD struct {
	// Name is the CRD's name, "foos.example.com": a probe resource.
	Name string
	// Group, Version (the storage version) and Kind are the kind of its CRs;
	// Plural names them in the Probe's status ("foos").
	Group, Version, Kind, Plural string
	// Annotations are the CRD's, where the condition annotations are read from.
	Annotations map[string]string
}

// GVK is the kind of the CRD's CRs, at its storage version.
func (c CRD) GVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: c.Group, Version: c.Version, Kind: c.Kind}
}

// DesiredSpec is the Probe's spec the aggregator keeps (002 §Example
// Workflow): manager crdAnnotations and one probe resource per CRD that
// carries an Upgradeable or Important condition annotation, in order of
// CRD name, each expression copied as written (one that does not parse is
// kept, for ProbeValid to name). Annotations under the prefix with another
// name are not OLM supported conditions and give no entry. With none, the
// list is empty, not nil (OLM's Probe, with no annotation left).
func DesiredSpec(crds []CRD) probe.Spec {
	spec := probe.Spec{Manager: probe.ManagerCRDAnnotations, ProbeResources: []probe.Resource{}}
	sorted := slices.Clone(crds)
	slices.SortFunc(sorted, func(a, b CRD) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range sorted {
		up, hasUp := c.Annotations[expr.AnnotationPrefix+expr.NameUpgradeable]
		imp, hasImp := c.Annotations[expr.AnnotationPrefix+expr.NameImportant]
		if hasUp || hasImp {
			spec.ProbeResources = append(spec.ProbeResources, probe.Resource{Resource: c.Name, Upgradeable: up, Important: imp})
		}
	}
	return spec
}

// Annotated tells whether any CRD carries an OLM supported condition
// annotation: only then does the aggregator create a missing Probe.
func Annotated(crds []CRD) bool { return len(DesiredSpec(crds).ProbeResources) > 0 }

// SameSpec tells whether two specs say the same. A nil list of resources
// is not an empty one (package probe: the seed tells them apart).
func SameSpec(a, b *probe.Spec) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Manager == b.Manager && (a.ProbeResources == nil) == (b.ProbeResources == nil) &&
		slices.Equal(a.ProbeResources, b.ProbeResources)
}

// Resource is one probe resource with its expressions parsed.
type Resource struct {
	// Name is the CRD's name, as the spec gives it.
	Name string
	// Upgradeable is the parsed Upgradeable expression, nil when there is
	// none or it does not parse (then the resource blocks nothing: it
	// cannot be calculated); UpgradeableText is the expression as written,
	// the reason a blocking CR gives.
	Upgradeable expr.Expr
	// UpgradeableText is the Upgradeable expression as written.
	UpgradeableText string
	// Important holds the condition types the Important expression names,
	// nil when there is none or it does not parse.
	Important []string
}

// Compile parses the spec's expressions. Problems are the errors, one per
// expression that does not parse, in spec order, each naming the
// resource, the annotation, the 1-based column and what was expected: the
// ProbeValid message joins them.
func Compile(spec probe.Spec) (resources []Resource, problems []string) {
	for _, pr := range spec.ProbeResources {
		r := Resource{Name: pr.Resource, UpgradeableText: pr.Upgradeable}
		if pr.Upgradeable != "" {
			if _, e, err := expr.ParseAnnotation(expr.AnnotationPrefix+expr.NameUpgradeable, pr.Upgradeable); err != nil {
				problems = append(problems, problem(pr.Resource, err))
			} else {
				r.Upgradeable = e
			}
		}
		if pr.Important != "" {
			if _, e, err := expr.ParseAnnotation(expr.AnnotationPrefix+expr.NameImportant, pr.Important); err != nil {
				problems = append(problems, problem(pr.Resource, err))
			} else {
				r.Important = expr.Vars(e)
			}
		}
		resources = append(resources, r)
	}
	return resources, problems
}

// Unsupported lists, as problems for ProbeValid, the annotations under the
// condition prefix whose name is no OLM supported condition (002 §Design
// Details: Upgradeable and Important): they give no probe resource, but an
// author who wrote one meant something, and is told (decision 002,
// conformance/olm/README.md: errors rather than silence). In order of CRD
// name, then key.
func Unsupported(crds []CRD) []string {
	sorted := slices.Clone(crds)
	slices.SortFunc(sorted, func(a, b CRD) int { return strings.Compare(a.Name, b.Name) })
	var problems []string
	for _, c := range sorted {
		var keys []string
		for k := range c.Annotations {
			name, ok := strings.CutPrefix(k, expr.AnnotationPrefix)
			if ok && name != expr.NameUpgradeable && name != expr.NameImportant {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, _, err := expr.ParseAnnotation(k, c.Annotations[k]); err != nil {
				problems = append(problems, problem(c.Name, err))
			}
		}
	}
	return problems
}

// problem is one ProbeValid error: the resource, then the annotation's own
// error (its key, the column and what was expected).
func problem(resource string, err error) string {
	return fmt.Sprintf("%s: %v", resource, err)
}
