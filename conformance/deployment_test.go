package conformance_test

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/conformance/staticpod"
)

// A Deployment subject names one Deployment per operator ({name}); only a
// role that takes real-time subjects accepts it, and a malformed one says
// what is wrong.
func TestDeploymentSubjects(t *testing.T) {
	m := stale.Mechanism(stale.DefaultConfig())
	cast, err := conformance.Subjects(m, map[string]string{"operator": "deployment:operators/{name}-operator"})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := cast["operator"].Impl.(conformance.Deployment)
	if !ok || d.For("etcd").String() != "operators/etcd-operator" {
		t.Fatalf("operator is %#v", cast["operator"].Impl)
	}
	for subject, want := range map[string]string{
		"deployment:operators":                       "want NAMESPACE/NAME",
		"deployment:/x":                              "want NAMESPACE/NAME",
		"deployment:Operators/{name}":                `namespace "Operators"`,
		"deployment:operators/{name}_op":             `name "{name}_op"`,
		"deployment:ops/" + strings.Repeat("a", 254): "name",
	} {
		_, err := conformance.Subjects(m, map[string]string{"operator": subject})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error saying %q", subject, err, want)
		}
	}
	// A role that takes no Deployment says why.
	sp := staticpod.Mechanism(staticpod.DefaultConfig())
	if _, err := conformance.Subjects(sp, map[string]string{"startup-monitor": "deployment:ops/monitor"}); err == nil || !strings.Contains(err.Error(), "role staticpod.startup-monitor cannot be played by a Deployment (cluster mode): a Deployment on a cluster cannot see") {
		t.Errorf("the startup-monitor as a Deployment: %v", err)
	}
}
