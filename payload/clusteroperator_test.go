package payload

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func deployment(ns, name string) string {
	return fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\n  namespace: %s\n", name, ns)
}

func clusterOperator(name, annotation string) string {
	s := "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: " + name + "\n"
	if annotation != "" {
		s += "  annotations:\n    " + ReportedByAnnotation + ": " + annotation + "\n"
	}
	return s + "status:\n  versions:\n    - {name: operator, version: 0.0.1-snapshot}\n"
}

func TestClusterOperatorsVersions(t *testing.T) {
	p, err := ReadFS(t.Context(), fstest.MapFS{
		"a.yaml": {Data: []byte(clusterOperator("a", "") + "    - {name: kube, version: 1.36.3}\n" +
			"---\napiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: b\n" +
			"---\napiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: c\nstatus:\n  versions: {operator: x}\n" +
			"---\napiVersion: config.openshift.io/v1beta1\nkind: ClusterOperator\nmetadata:\n  name: d\n" +
			"---\n" + deployment("ns", "a-operator"))},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, co := range p.ClusterOperators() {
		s := co.Name + ":"
		for _, v := range co.Versions {
			s += " " + v.Name + "=" + v.Version
		}
		if co.Err != nil {
			s += " error"
		}
		got = append(got, s)
	}
	want := "a: operator=0.0.1-snapshot kube=1.36.3|b:|c: error"
	if strings.Join(got, "|") != want {
		t.Errorf("ClusterOperators: %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestReportedBy(t *testing.T) {
	for _, tc := range []struct {
		value        string // "" for no annotation
		want         Ref
		given, fails bool
	}{
		{"", Ref{}, false, false},
		{"ns/op", Ref{"ns", "op"}, true, false},
		{"ns/op.v2", Ref{"ns", "op.v2"}, true, false},
		{"op", Ref{}, true, true},
		{"ns/", Ref{}, true, true},
		{"/op", Ref{}, true, true},
		{"ns/a/b", Ref{}, true, true},
		{"NS/op", Ref{}, true, true},
	} {
		ms, _ := parseFile("co.yaml", []byte(clusterOperator("x", fmt.Sprintf("%q", tc.value))))
		if tc.value == "" {
			ms, _ = parseFile("co.yaml", []byte(clusterOperator("x", "")))
		}
		ref, given, err := ReportedBy(ms[0])
		if ref != tc.want || given != tc.given || (err != nil) != tc.fails {
			t.Errorf("%q: %v, %v, %v; want %v, given %v, error %v", tc.value, ref, given, err, tc.want, tc.given, tc.fails)
		}
	}
}

func TestOperatorOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		co    string // the ClusterOperator's name
		want  string // the operator's file#index, "" for none
	}{
		{"same component, named <name>-operator first", map[string]string{
			"0000_50_x_01_helper.yaml":   deployment("ns", "x-helper"),
			"0000_50_x_02_operator.yaml": deployment("ns", "x-operator"),
			"0000_50_x_07_co.yaml":       clusterOperator("x", ""),
		}, "x", "0000_50_x_02_operator.yaml#0"},
		{"same component, named <name>", map[string]string{
			"0000_50_x_01_helper.yaml": deployment("ns", "x-helper") + "---\n" + deployment("ns", "x"),
			"0000_50_x_07_co.yaml":     clusterOperator("x", ""),
		}, "x", "0000_50_x_01_helper.yaml#1"},
		{"same component, any name", map[string]string{
			"0000_50_x_03_deployment.yaml": deployment("ns", "manager"),
			"0000_50_x_07_co.yaml":         clusterOperator("example", ""),
		}, "example", "0000_50_x_03_deployment.yaml#0"},
		{"same component, even after it", map[string]string{
			"0000_50_x_07_co.yaml":         clusterOperator("example", ""),
			"0000_50_x_09_deployment.yaml": deployment("ns", "manager"),
		}, "example", "0000_50_x_09_deployment.yaml#0"},
		{"by name in another component", map[string]string{
			"0000_10_y_03_deployment.yaml": deployment("ns", "other") + "---\n" + deployment("ns", "x-operator"),
			"0000_50_x_07_co.yaml":         clusterOperator("x", ""),
		}, "x", "0000_10_y_03_deployment.yaml#1"},
		{"files without 0000_ are one component", map[string]string{
			"07-operator.yaml":        deployment("ns", "cluster-x-operator"),
			"08-clusteroperator.yaml": clusterOperator("x", ""),
		}, "x", "07-operator.yaml#0"},
		{"a 0000_ file is not in that component", map[string]string{
			"07-operator.yaml":             deployment("ns", "cluster-x-operator"),
			"0000_50_y_08_co.yaml":         clusterOperator("x", ""),
			"0000_50_z_03_deployment.yaml": deployment("ns", "x"),
		}, "x", "0000_50_z_03_deployment.yaml#0"},
		{"not a Deployment", map[string]string{
			"0000_50_x_03_daemonset.yaml": strings.Replace(deployment("ns", "x-operator"), "Deployment", "DaemonSet", 1),
			"0000_50_x_07_co.yaml":        clusterOperator("x", ""),
		}, "x", ""},
		{"none", map[string]string{
			"0000_50_x_03_deployment.yaml": deployment("ns", "y"),
			"0000_50_z_07_co.yaml":         clusterOperator("x", ""),
		}, "x", ""},
		{"named by the annotation, over the component", map[string]string{
			"0000_50_x_02_operator.yaml": deployment("ns", "x-operator"),
			"0000_60_y_03_other.yaml":    deployment("other", "reporter"),
			"0000_70_x_07_co.yaml":       clusterOperator("x", "other/reporter"),
		}, "x", "0000_60_y_03_other.yaml#0"},
		{"named by the annotation and absent: no guess", map[string]string{
			"0000_50_x_02_operator.yaml": deployment("ns", "x-operator"),
			"0000_50_x_07_co.yaml":       clusterOperator("x", "ns/typo"),
		}, "x", ""},
		{"a malformed annotation: no guess", map[string]string{
			"0000_50_x_02_operator.yaml": deployment("ns", "x-operator"),
			"0000_50_x_07_co.yaml":       clusterOperator("x", "x-operator"),
		}, "x", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for name, data := range tc.files {
				fsys[name] = &fstest.MapFile{Data: []byte(data)}
			}
			p, err := ReadFS(t.Context(), fsys)
			if err != nil {
				t.Fatal(err)
			}
			var co *ClusterOperator
			for _, c := range p.ClusterOperators() {
				if c.Name == tc.co {
					co = &c
				}
			}
			if co == nil {
				t.Fatalf("no ClusterOperator %s in %v", tc.co, p.Manifests)
			}
			got := ""
			if d, ok := p.OperatorOf(co.Manifest); ok {
				got = fmt.Sprintf("%s#%d", d.File, d.Index)
			}
			if got != tc.want {
				t.Errorf("OperatorOf(%s) = %q, want %q", tc.co, got, tc.want)
			}
		})
	}
}

// The example payloads: the operator of each ClusterOperator is where the
// fixture's name says.
func TestOperatorOfFixtures(t *testing.T) {
	for dir, want := range map[string]string{
		"good":          "0000_50_example-operator_03_deployment.yaml example-operator/example-operator before",
		"ordering-trap": "0000_50_example-operator_09_deployment.yaml example-operator/example-operator after",
	} {
		p, err := Read(t.Context(), filepath.Join(fixtures, dir))
		if err != nil {
			t.Fatal(err)
		}
		cos := p.ClusterOperators()
		if len(cos) != 1 {
			t.Fatalf("%s: %d ClusterOperators", dir, len(cos))
		}
		d, ok := p.OperatorOf(cos[0].Manifest)
		order := "before"
		if d.Seq > cos[0].Seq {
			order = "after"
		}
		if got := fmt.Sprintf("%s %s/%s %s", d.File, d.Namespace, d.Name, order); !ok || got != want {
			t.Errorf("%s: operator %q (found %v), want %q", dir, got, ok, want)
		}
	}
}
