package payload

import (
	"fmt"
	"strings"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
)

// ReportedByAnnotation, on a ClusterOperator manifest, names the Deployment
// manifest of the operator that reports it, as "<namespace>/<name>". The
// seed leaves open how that operator is known (see the package doc).
const ReportedByAnnotation = "opcert.io/reported-by"

// ClusterOperator is a ClusterOperator manifest as the version operator
// reads it: which live instance to wait for (its name) and the versions
// that instance must report (001 §What should be the contents of
// ClusterOperator Custom Resource in /manifests).
type ClusterOperator struct {
	Manifest
	// Versions are the expected versions, status.versions in manifest
	// order, "operator" among them if the manifest declares it.
	Versions []configv1.OperandVersion
	// Err says why the manifest does not read as a ClusterOperator (a
	// field of the wrong type); Versions is then empty.
	Err error
}

// IsClusterOperator says whether m is a config.openshift.io/v1
// ClusterOperator, the kind the version operator waits on.
func (m Manifest) IsClusterOperator() bool {
	return m.GroupVersionKind() == configv1.GroupVersion.WithKind("ClusterOperator")
}

// IsDeployment says whether m is a Deployment (group apps).
func (m Manifest) IsDeployment() bool {
	gvk := m.GroupVersionKind()
	return gvk.Group == "apps" && gvk.Kind == "Deployment"
}

// ClusterOperators lists the payload's ClusterOperator manifests in sweep
// order.
func (p *Payload) ClusterOperators() []ClusterOperator {
	var out []ClusterOperator
	for _, m := range p.Manifests {
		if !m.IsClusterOperator() {
			continue
		}
		co := ClusterOperator{Manifest: m}
		var typed configv1.ClusterOperator
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m.Object.Object, &typed); err != nil {
			co.Err = err
		} else {
			co.Versions = typed.Status.Versions
		}
		out = append(out, co)
	}
	return out
}

// Ref names a namespaced object.
type Ref struct {
	// Namespace and Name are the object's.
	Namespace, Name string
}

// String is namespace/name, as the annotation writes it.
func (r Ref) String() string { return r.Namespace + "/" + r.Name }

// ReportedBy reads co's ReportedByAnnotation: false when co has none, an
// error when its value is not "<namespace>/<name>".
func ReportedBy(co Manifest) (Ref, bool, error) {
	v, ok := co.Object.GetAnnotations()[ReportedByAnnotation]
	if !ok {
		return Ref{}, false, nil
	}
	ns, name, cut := strings.Cut(v, "/")
	if !cut || len(validation.IsDNS1123Label(ns)) > 0 || len(validation.IsDNS1123Subdomain(name)) > 0 {
		return Ref{}, true, fmt.Errorf("annotation %s: %q is not <namespace>/<deployment>", ReportedByAnnotation, v)
	}
	return Ref{ns, name}, true, nil
}

// OperatorOf finds the Deployment manifest of the operator that reports
// the ClusterOperator manifest co (the package doc says how), and false
// when the payload has none.
func (p *Payload) OperatorOf(co Manifest) (Manifest, bool) {
	d := p.deployments
	if ref, given, err := ReportedBy(co); given {
		if err != nil {
			return Manifest{}, false
		}
		return firstOf(d.byRef[ref])
	}
	if c, ok := ComponentOf(co); ok {
		if m, ok := firstOf(d.byComponentName[[2]string{c, co.Name}], d.byComponentName[[2]string{c, co.Name + "-operator"}]); ok {
			return m, true
		}
		if m, ok := firstOf(d.byComponent[c]); ok {
			return m, true
		}
	}
	if co.Name == "" {
		return Manifest{}, false
	}
	return firstOf(d.byName[co.Name], d.byName[co.Name+"-operator"])
}

// SameComponent says whether a and b belong to one component: both
// files name the same one, or neither name starts with "0000_". The
// payload build gives the files of an operator's manifests directory that
// do not start with "0000_" the prefix 0000_50_<operator>_, so before the
// build they are one component without a name (ComponentOf).
func SameComponent(a, b Manifest) bool {
	ca, oka := ComponentOf(a)
	cb, okb := ComponentOf(b)
	return oka && okb && ca == cb
}
