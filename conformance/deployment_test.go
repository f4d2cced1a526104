package conformance_test

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
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
	// A role that takes no Deployment says why. (A mechanism of its own:
	// importing another mechanism here would register its built-ins with
	// this package's suite, which plays stale's.)
	why := "a simulated node's files are not on a cluster"
	nodeOnly := conformance.Declare("nodes", "900", []conformance.Role{{Name: "monitor", Forms: []conformance.Form{conformance.FormProcess},
		Cannot: map[conformance.Form]string{conformance.FormLibrary: why, conformance.FormCluster: why}, Subjects: []conformance.Subject{{Name: "reference"}}}}, nil, nil)
	if _, err := conformance.Subjects(nodeOnly, map[string]string{"monitor": "deployment:ops/monitor"}); err == nil || !strings.Contains(err.Error(), "role nodes.monitor cannot be played by a Deployment (cluster mode): "+why) {
		t.Errorf("the monitor as a Deployment: %v", err)
	}
}
