package lint

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/payload"
)

// fixtures holds the example payloads, one directory per mistake.
const fixtures = "../../../fixtures/payloads"

// brief writes a finding as "ID severity file:line".
func brief(f conformance.LintFinding) string {
	return fmt.Sprintf("%s %s %s:%d", f.ID, f.Severity, f.File, f.Line)
}

func lintDir(t *testing.T, dir string) []conformance.LintFinding {
	t.Helper()
	p, err := payload.Read(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return Lint(p)
}

// Each example payload holds one kind of mistake; the lint finds exactly
// those, where they are, and good/ has none.
func TestLintFixtures(t *testing.T) {
	const (
		co  = "0000_50_example-operator_07_clusteroperator.yaml"
		dep = "0000_50_example-operator_03_deployment.yaml"
	)
	for _, tc := range []struct {
		dir  string
		want []string
		says []string // in the messages
	}{
		{"good", nil, nil},
		{"bad-yaml", []string{"LINT-001 error 0000_50_example-operator_04_config.yaml:12"},
			[]string{"not valid YAML: did not find expected key"}},
		{"bad-json", []string{"LINT-001 error 0000_50_example-operator_05_config.json:7"},
			[]string{"not valid JSON"}},
		{"incomplete-manifests", []string{
			"LINT-002 error 0000_50_example-operator_04_config.yaml:1",
			"LINT-002 error 0000_50_example-operator_04_config.yaml:8"},
			[]string{"has no kind", "(a ConfigMap) has no metadata.name"}},
		{"missing-name", []string{"LINT-003 error " + co + ":3"}, []string{"no metadata.name"}},
		{"missing-operator-version", []string{"LINT-004 error " + co + ":1", "LINT-004 error " + co + ":13"},
			[]string{"ClusterOperator example declares no expected versions", "has no entry named operator (it has example-operand)"}},
		{"empty-version", []string{"LINT-005 error " + co + ":10"}, []string{"operator version is empty"}},
		{"invalid-versions", []string{"LINT-006 error " + co + ":10", "LINT-006 error " + co + ":11", "LINT-013 error " + co + ":19"},
			[]string{"entry 2 of ClusterOperator example's status.versions has no name", "names operator twice (entries 1 and 3)",
				"example-extra does not read as a ClusterOperator"}},
		{"ordering-trap", []string{"LINT-007 error " + co + ":1"},
			[]string{"ClusterOperator example (" + co + ":1) comes before Deployment example-operator/example-operator (0000_50_example-operator_09_deployment.yaml:1)"}},
		{"reported-by", []string{
			"LINT-008 error 0000_50_example-operator_07_clusteroperators.yaml:19",
			"LINT-008 error 0000_50_example-operator_07_clusteroperators.yaml:31"},
			[]string{"example-helper is reported by Deployment example-operator/example-helper, which is not in the payload",
				`"example-operator" is not <namespace>/<deployment>`}},
		{"no-operator", []string{"LINT-009 warning " + co + ":1"},
			[]string{"none in component example-operator, none named example or example-operator"}},
		{"duplicate-clusteroperator", []string{"LINT-010 error 0000_50_example-operator_08_clusteroperator.yaml:4"},
			[]string{"ClusterOperator example is declared again (first in " + co + ":4)"}},
		{"status-conditions", []string{"LINT-011 warning " + co + ":7"}, []string{"carries status.conditions"}},
		{"ignored-files", []string{
			"LINT-012 warning 0000_50_example-operator_04_deployment.yaml.orig:0",
			"LINT-012 warning 0000_50_example-operator_05_configmap.YAML:0",
			"LINT-012 warning README.md:0",
			"LINT-012 warning extra:0"},
			[]string{"extension .orig", "extensions are matched as written", "extension .md", "a subdirectory"}},
		{"wrong-apiversion", []string{"LINT-015 warning " + dep + ":1", "LINT-014 error " + co + ":1"},
			[]string{`kind ClusterOperator has apiVersion "config.openshift.io/v1beta1"`, "component example-operator deploys example-operator/example-operator"}},
		{"no-clusteroperator", []string{"LINT-015 warning 0000_60_other-operator_03_deployment.yaml:1"},
			[]string{"component other-operator deploys example-operator/other-operator but has no ClusterOperator manifest"}},
		{"namespaced-clusteroperator", []string{"LINT-016 warning " + co + ":5"}, []string{`metadata.namespace "example-operator"`}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			fs := lintDir(t, filepath.Join(fixtures, tc.dir))
			var got, text []string
			for _, f := range fs {
				got = append(got, brief(f))
				text = append(text, f.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			all := strings.Join(text, "\n")
			for _, s := range tc.says {
				if !strings.Contains(all, s) {
					t.Errorf("no finding says %q:\n%s", s, all)
				}
			}
		})
	}
}

// Every check is shown failing by at least one example payload.
func TestEveryCheckHasAFixture(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixtures, "*"))
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, d := range dirs {
		for _, f := range lintDir(t, d) {
			shown[f.ID] = true
		}
	}
	for _, c := range Checks() {
		if !shown[c.ID] {
			t.Errorf("%s (%s) is found in no example payload", c.ID, c.Statement)
		}
	}
}

// Findings take their severity and section from the check, and the
// sections are the seed's.
func TestChecksCiteTheSeed(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range Checks() {
		if want := fmt.Sprintf("LINT-%03d", i+1); c.ID != want || seen[c.ID] {
			t.Errorf("check %d is %s, want %s, each once", i, c.ID, want)
		}
		seen[c.ID] = true
		if !strings.HasPrefix(c.Section, "001 §") || c.Statement == "" {
			t.Errorf("%s: section %q, statement %q", c.ID, c.Section, c.Statement)
		}
		f := c.at("f.yaml", 3, "m")
		if f.ID != c.ID || f.Severity != c.Severity || f.Section != c.Section {
			t.Errorf("%s makes %+v", c.ID, f)
		}
	}
}

// The ordering trap inside one file or in a variant of the Deployment,
// and an operator that comes first in another component, which is none.
func TestOrderingTrapWithinAFile(t *testing.T) {
	co := "apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: x\nstatus:\n  versions:\n    - {name: operator, version: \"1\"}\n"
	dep := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x-operator\n  namespace: ns\n"
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  []string
	}{
		{"deployment second in the file", fstest.MapFS{"0000_50_x_01_all.yaml": {Data: []byte(co + "---\n" + dep)}},
			[]string{"LINT-007 error 0000_50_x_01_all.yaml:1"}},
		{"deployment first in the file", fstest.MapFS{"0000_50_x_01_all.yaml": {Data: []byte(dep + "---\n" + co)}}, nil},
		{"a variant of the deployment after it", fstest.MapFS{
			"0000_50_x_01_deployment.yaml":       {Data: []byte(dep)},
			"0000_50_x_02_co.yaml":               {Data: []byte(co)},
			"0000_50_x_03_deployment-other.yaml": {Data: []byte(dep)},
		}, []string{"LINT-007 error 0000_50_x_02_co.yaml:1"}},
		{"deployment in an earlier run level", fstest.MapFS{
			"0000_10_y_01_deployment.yaml": {Data: []byte(dep)},
			"0000_50_x_01_co.yaml":         {Data: []byte(co)},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := payload.ReadFS(t.Context(), tc.files)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range Lint(p) {
				got = append(got, brief(f))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

// The registered linter reads the directory, says what it read, and
// refuses a path that is no directory.
func TestRegisteredLinter(t *testing.T) {
	var l conformance.Linter
	for _, x := range conformance.Linters() {
		if x.Name == "manifests" {
			l = x
		}
	}
	if l.Mechanism != "clusteroperator" || l.Seed != "001" || l.Run == nil {
		t.Fatalf("linter manifests: %+v", l)
	}
	for _, c := range Checks() {
		if !strings.Contains(l.Long, c.ID) {
			t.Errorf("the help does not explain %s", c.ID)
		}
	}
	res, err := l.Run(t.Context(), filepath.Join(fixtures, "ignored-files"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "3 files swept, 3 manifests, 1 ClusterOperator, 5 entries ignored"; res.Checked != want || len(res.Findings) != 4 {
		t.Errorf("checked %q with %d findings, want %q with 4", res.Checked, len(res.Findings), want)
	}
	if _, err := l.Run(t.Context(), filepath.Join(fixtures, "good", "image-references")); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file: %v", err)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		text  string
		width int
		want  string
	}{
		{"a bb ccc", 80, "a bb ccc"},
		{"a bb ccc dddd", 6, "a bb\n>ccc\n>dddd"},
		{"averyverylongword b", 4, "averyverylongword\n>b"},
		{"", 4, ""},
	} {
		if got := wrap(tc.text, tc.width, ">"); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.text, tc.width, got, tc.want)
		}
	}
}
