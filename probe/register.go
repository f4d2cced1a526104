package probe

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the Probe's API group and version (002 §Example Workflow).
var GroupVersion = schema.GroupVersion{Group: "operators.coreos.com", Version: "v1alpha1"}

var schemeBuilder = runtime.NewSchemeBuilder(func(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Probe{}, &ProbeList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
})

// AddToScheme adds Probe and ProbeList to a scheme.
var AddToScheme = schemeBuilder.AddToScheme
