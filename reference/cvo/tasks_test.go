package cvo

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	manifests "github.com/opcert/opcert/payload"
)

// brief writes a task on one line: index, kind, namespace/name, and for a
// ClusterOperator its versions and the index and name of its operator.
func brief(t Task) string {
	s := fmt.Sprintf("%d %s %s/%s", t.Index, t.Kind, t.Namespace, t.Name)
	if !t.ClusterOperator {
		return s
	}
	for _, v := range t.Versions {
		s += fmt.Sprintf(" %s=%s", v.Name, v.Version)
	}
	if t.Operator == nil {
		return s + " by nobody"
	}
	return s + fmt.Sprintf(" by %d %s/%s %s", t.Operator.Index, t.Operator.Namespace, t.Operator.Name, t.Operator.File)
}

// The payload's manifests become tasks in sweep order, one per object,
// each ClusterOperator with the operator that reports it (001 §How
// ClusterVersionOperator handles ClusterOperator in release image).
func TestTasksOf(t *testing.T) {
	const deployment = "0000_50_example-operator_03_deployment.yaml"
	for _, tc := range []struct {
		name string
		dir  string
		fs   fstest.MapFS
		want []string
		// errs are what the error must say, file and line first.
		errs []string
	}{
		{name: "good: every document of every swept file, the JSON one too", dir: "good", want: []string{
			"0 Namespace /example-operator",
			"1 ServiceAccount example-operator/example-operator",
			"2 ClusterRoleBinding /example-operator",
			"3 Deployment example-operator/example-operator",
			"4 ConfigMap example-operator/example-operator-config",
			"5 ClusterOperator /example operator=0.0.1-snapshot by 3 example-operator/example-operator " + deployment,
		}},
		{name: "ordering trap: the operator comes after its ClusterOperator", dir: "ordering-trap", want: []string{
			"0 Namespace /example-operator",
			"1 ClusterOperator /example operator=0.0.1-snapshot by 2 example-operator/example-operator 0000_50_example-operator_09_deployment.yaml",
			"2 Deployment example-operator/example-operator",
		}},
		{name: "no operator in the payload", dir: "no-operator", want: []string{
			"0 Namespace /example-operator",
			"1 ClusterOperator /example operator=0.0.1-snapshot by nobody",
		}},
		{name: "an operator named by annotation outside the payload", fs: fstest.MapFS{
			"0000_50_a_07_clusteroperator.yaml": {Data: []byte("apiVersion: config.openshift.io/v1\nkind: ClusterOperator\n" +
				"metadata:\n  name: a\n  annotations:\n    opcert.io/reported-by: ns/a-operator\n" +
				"status:\n  versions:\n  - name: operator\n    version: 4.0.0\n")},
		}, want: []string{"0 ClusterOperator /a operator=4.0.0 by -1 ns/a-operator "}},
		{name: "a document that is not YAML", dir: "bad-yaml", errs: []string{
			"0000_50_example-operator_04_config.yaml:12: not valid YAML"}},
		{name: "status.versions that do not read", dir: "invalid-versions", errs: []string{
			"0000_50_example-operator_07_clusteroperator.yaml:20: the ClusterOperator's status does not read"}},
		{name: "an object without a name", dir: "missing-name", errs: []string{
			"0000_50_example-operator_07_clusteroperator.yaml:1: an object needs apiVersion, kind and metadata.name"}},
		{name: "an annotation that names no Deployment", dir: "reported-by", errs: []string{
			"0000_50_example-operator_07_clusteroperators.yaml:31: annotation opcert.io/reported-by: \"example-operator\" is not <namespace>/<deployment>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := readPayload(tc.dir, tc.fs)
			if err != nil {
				t.Fatal(err)
			}
			tasks, objects, err := TasksOf(p)
			if len(tc.errs) > 0 {
				if err == nil {
					t.Fatalf("no error; want %q", tc.errs)
				}
				for _, e := range tc.errs {
					if !strings.Contains(err.Error(), e) {
						t.Errorf("error %q does not say %q", err, e)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, task := range tasks {
				got = append(got, brief(task))
				if objects[i].GetKind() != task.Kind || objects[i].GetName() != task.Name {
					t.Errorf("task %d applies %s %s, not its own object", i, objects[i].GetKind(), objects[i].GetName())
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("tasks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// readPayload reads one of fixtures/payloads, or fsys when dir is empty.
func readPayload(dir string, fsys fstest.MapFS) (*manifests.Payload, error) {
	if dir == "" {
		return manifests.ReadFS(context.Background(), fsys)
	}
	return manifests.Read(context.Background(), filepath.Join("..", "..", "fixtures", "payloads", dir))
}
