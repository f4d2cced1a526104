package lint

import (
	"testing"
	"testing/fstest"

	"github.com/opcert/opcert/payload"
)

// FuzzLint holds opcert lint manifests, from the sweep of the files to
// the findings, to this whatever two files of a payload hold: no panic,
// and every finding names a file of the payload. (go test -fuzz FuzzLint
// ./conformance/clusteroperator/lint/)
func FuzzLint(f *testing.F) {
	f.Add([]byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: example-operator\n  namespace: ns\n"),
		[]byte("apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: example\n  annotations:\n    opcert.io/reported-by: ns/example-operator\nstatus:\n  versions:\n  - name: operator\n    version: 0.0.1-snapshot\n"))
	f.Add([]byte("kind: ClusterOperator\napiVersion: config.openshift.io/v1\nstatus: {versions: [{name: a}, {name: a}]}\n---\n{"), []byte("[1]"))
	names := []string{"0000_50_x_01_a.yaml", "b.json"}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		p, err := payload.ReadFS(t.Context(), fstest.MapFS{names[0]: {Data: a}, names[1]: {Data: b}})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Lint(p) {
			if f.File != names[0] && f.File != names[1] {
				t.Fatalf("finding in %q, not a file of the payload: %v", f.File, f)
			}
		}
	})
}
