package payload

import (
	"fmt"
	"strings"
	"testing"
)

// brief writes what parseFile found, one line each: a manifest as
// "index@line kind/name", a problem as "!line message".
func brief(ms []Manifest, ps []Problem) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%d@%d %s/%s", m.Index, m.Line, m.Kind, m.Name))
	}
	for _, p := range ps {
		out = append(out, fmt.Sprintf("!%d %s", p.Line, p.Message))
	}
	return out
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

func TestParseFile(t *testing.T) {
	for _, tc := range []struct {
		name, file, data string
		want             []string // brief's lines; a problem's message is matched by prefix
	}{
		{"one document", "a.yaml", fmt.Sprintf(cm, "a"), []string{"0@1 ConfigMap/a"}},
		{"leading separator and comments", "a.yaml",
			"# the operator's config\n---\n# first\n" + fmt.Sprintf(cm, "a") + "---\n\n" + fmt.Sprintf(cm, "b"),
			[]string{"0@4 ConfigMap/a", "1@10 ConfigMap/b"}},
		{"separator with a comment, CRLF", "a.yaml",
			strings.ReplaceAll(fmt.Sprintf(cm, "a")+"--- # next\n"+fmt.Sprintf(cm, "b"), "\n", "\r\n"),
			[]string{"0@1 ConfigMap/a", "1@6 ConfigMap/b"}},
		{"empty and null documents are skipped", "a.yaml",
			"---\n---\n# nothing\n---\nnull\n---\n" + fmt.Sprintf(cm, "a") + "---\n",
			[]string{"0@7 ConfigMap/a"}},
		{"--- with content is not a separator", "a.yaml", "---x: 1\n", []string{"0@1 /"}},
		{"a bad document does not lose the others", "a.yaml",
			fmt.Sprintf(cm, "a") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n data: {}\n---\n" + fmt.Sprintf(cm, "c"),
			[]string{"0@1 ConfigMap/a", "1@12 ConfigMap/c", "!10 not valid YAML: did not find expected key (check"}},
		{"scanner error line", "a.yaml", fmt.Sprintf(cm, "a") + "---\nkind: ConfigMap\n\tname: x\n",
			[]string{"0@1 ConfigMap/a", "!7 not valid YAML: found a tab character that violates indentation"}},
		{"error past the end is on the last line", "a.yaml", "kind: ConfigMap\ndata:\n  a: [\n\n\n",
			[]string{"!3 not valid YAML: did not find expected node content"}},
		{"a list is not an object", "a.yaml", "- a\n- b\n---\n" + fmt.Sprintf(cm, "a"),
			[]string{"0@4 ConfigMap/a", "!1 the document is a list, not an object"}},
		{"a string is not an object", "a.yaml", "\n\nhello\n", []string{"!3 the document is a string, not an object"}},
		{"JSON", "a.json", "\n{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"a\"}\n}\n",
			[]string{"0@2 ConfigMap/a"}},
		{"JSON objects one after another", "a.json",
			`{"kind": "ConfigMap", "metadata": {"name": "a"}}` + "\n\n" + `{"kind": "Secret", "metadata": {"name": "b"}}`,
			[]string{"0@1 ConfigMap/a", "1@3 Secret/b"}},
		{"JSON that YAML would take", "a.json", "{\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"a\",}\n}\n",
			[]string{"!3 not valid JSON: invalid character '}'"}},
		{"JSON cut short", "a.json", "{\"kind\": \"ConfigMap\",\n\"metadata\": {\n", []string{"!3 not valid JSON: unexpected EOF"}},
		{"JSON in a .yaml file is JSON", "a.yaml", `{"kind": "ConfigMap", "metadata": {"name": "a"}} [1]`,
			[]string{"0@1 ConfigMap/a", "!1 the document is a list, not an object"}},
		{"YAML in a .json file is YAML", "a.json", fmt.Sprintf(cm, "a"), []string{"0@1 ConfigMap/a"}},
		{"empty file", "a.yaml", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, ps := parseFile(tc.file, []byte(tc.data))
			got := brief(ms, ps)
			ok := len(got) == len(tc.want)
			for i := 0; ok && i < len(got); i++ {
				ok = got[i] == tc.want[i] || strings.HasPrefix(tc.want[i], "!") && strings.HasPrefix(got[i], tc.want[i])
			}
			if !ok {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			for _, p := range ps {
				if p.File != tc.file {
					t.Errorf("problem %v names file %q, want %q", p, p.File, tc.file)
				}
			}
		})
	}
}

// Numbers read as the API machinery reads them (int64, not float64), so
// that the objects deep-copy and compare as a client's would.
func TestParseKeepsIntegers(t *testing.T) {
	for _, data := range []string{"kind: Deployment\nspec:\n  replicas: 3\n", `{"kind": "Deployment", "spec": {"replicas": 3}}`} {
		ms, ps := parseFile("d.yaml", []byte(data))
		if len(ms) != 1 || len(ps) != 0 {
			t.Fatalf("%q: %v %v", data, ms, ps)
		}
		if r := ms[0].Object.DeepCopy().Object["spec"].(map[string]any)["replicas"]; r != int64(3) {
			t.Errorf("%q: replicas %#v, want int64(3)", data, r)
		}
	}
}

func TestRunLevelFromFileName(t *testing.T) {
	for _, tc := range []struct{ file, level, component string }{
		{"0000_50_example-operator_03_deployment.yaml", "50", "example-operator"},
		{"0000_00_cluster-version-operator_01_clusterversion.crd.yaml", "00", "cluster-version-operator"},
		{"0000_90_a_b.yaml", "90", "a"},
		{"0000_50_example-operator.yaml", "", ""}, // no rest
		{"0000_5x_a_b.yaml", "", ""},
		{"0000_50_-a_b.yaml", "", ""},
		{"0001_50_a_b.yaml", "", ""},
		{"deployment.yaml", "", ""},
	} {
		level, component := runLevel(tc.file)
		if level != tc.level || component != tc.component {
			t.Errorf("%s: run level %q, component %q; want %q, %q", tc.file, level, component, tc.level, tc.component)
		}
	}
}

func TestLineOf(t *testing.T) {
	data := "# a file\n---\n" + `apiVersion: config.openshift.io/v1
kind: ClusterOperator
metadata:
  name: example
status:
  versions:
    - name: operator
      version: "1"
    - name: other
      version: "2"
`
	ms, ps := parseFile("co.yaml", []byte(data))
	if len(ms) != 1 || len(ps) != 0 {
		t.Fatalf("%v %v", ms, ps)
	}
	m := ms[0]
	for _, tc := range []struct {
		path []string
		want int
	}{
		{nil, 3},
		{[]string{"metadata", "name"}, 6},
		{[]string{"status", "versions"}, 8},
		{[]string{"status", "versions", "1"}, 11},
		{[]string{"status", "versions", "1", "version"}, 12},
		{[]string{"status", "versions", "7"}, 8},         // no such item: the list
		{[]string{"status", "conditions"}, 7},            // no such key: status
		{[]string{"metadata", "name", "deeper"}, 6},      // a scalar has no fields
		{[]string{"spec"}, 3},                            // nothing of it: the object
		{[]string{"status", "versions", "x", "name"}, 8}, // not an index
	} {
		if got := m.LineOf(tc.path...); got != tc.want {
			t.Errorf("LineOf(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
	// Repeated keys: the object has the last one, and so does LineOf.
	ms, _ = parseFile("d.yaml", []byte("kind: A\nmetadata:\n  name: a\nmetadata:\n  name: b\n"))
	if got := ms[0].LineOf("metadata", "name"); ms[0].Name != "b" || got != 5 {
		t.Errorf("repeated key: name %q at line %d, want b at 5", ms[0].Name, got)
	}
}

func TestIgnoreReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		dir    bool
		swept  bool
		known  bool
		reason string // a part of it
	}{
		{"a.yaml", false, true, false, ""},
		{"a.yml", false, true, false, ""},
		{"a.json", false, true, false, ""},
		{"a.YAML", false, false, false, "matched as written"},
		{"a.yaml.orig", false, false, false, "extension .orig"},
		{"README", false, false, false, "no extension"},
		{"image-references", false, false, true, "image references"},
		{"release-metadata", false, false, true, "metadata"},
		{"sub.yaml", true, false, false, "subdirectory"},
	} {
		ig, skip := ignore(tc.name, tc.dir)
		if skip == tc.swept || ig.Known != tc.known || ig.Dir != (tc.dir && skip) || !strings.Contains(ig.Reason, tc.reason) {
			t.Errorf("%s (dir %v): %+v, ignored %v; want swept %v, known %v, reason with %q", tc.name, tc.dir, ig, skip, tc.swept, tc.known, tc.reason)
		}
		if skip && ig.Reason == "" {
			t.Errorf("%s: ignored without a reason", tc.name)
		}
	}
}
