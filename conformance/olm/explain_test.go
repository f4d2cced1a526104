package olm_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm"
)

// explainTool runs opcert olm explain with args.
func explainTool(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var tool conformance.Tool
	for _, x := range conformance.Tools() {
		if x.Mechanism == olm.Name && x.Name == "explain" {
			tool = x
		}
	}
	if tool.Flags == nil {
		t.Fatal("olm registers no explain tool")
	}
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	run := tool.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	var out bytes.Buffer
	err := run(t.Context(), fs.Args(), &out)
	return out.String(), err
}

// The seed's example CR, with its CRD's annotations: each expression's
// value and why, the reasons a Probe lists, and the gate closed; a CR
// without the migration's condition cannot be calculated and blocks
// nothing.
func TestExplainSeedExample(t *testing.T) {
	out, err := explainTool(t, "testdata/explain/crd.yaml", "testdata/explain/foos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := `Foo default/foo-example: BLOCKS the upgrade
  Important "BadConnectivity || UnhealthyDatabase" = True (BadConnectivity=True, UnhealthyDatabase=True)
  Upgradeable "!Migrating" = False (Migrating=True)
  reasons: !Migrating, UnhealthyDatabase, BadConnectivity
Foo team-a/foo-quiet: does not block
  Important "BadConnectivity || UnhealthyDatabase" = Unknown (BadConnectivity=missing, UnhealthyDatabase=missing)
  Upgradeable "!Migrating" = Unknown (Migrating=missing)
gate: CLOSED (reading holds): at least one CR blocks the upgrade (002 §Example Workflow)
`
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// The other reading, annotations given by flag, and JSON for scripts.
func TestExplainFlags(t *testing.T) {
	out, err := explainTool(t, "--reading", "blocks", "--annotation", "Upgradeable=Migrating && BadConnectivity", "-o", "json", "testdata/explain/foos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ex olm.Explanation
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !ex.Blocked || ex.Reading != "blocks" || len(ex.CRs) != 2 || !ex.CRs[0].Blocks || ex.CRs[1].Blocks {
		t.Errorf("got %+v", ex)
	}
	if got := ex.CRs[0].Reasons; len(got) != 1 || got[0] != "Migrating && BadConnectivity" {
		t.Errorf("reasons %q, want the blocking expression alone", got)
	}
}

// Bad input is the input's fault, said plainly.
func TestExplainErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--reading", "sometimes", "testdata/explain/foos.yaml"}, `--reading "sometimes"`},
		{[]string{"--annotation", "Upgradeable", "testdata/explain/foos.yaml"}, "give NAME=EXPRESSION"},
		{[]string{"testdata/explain/crd.yaml"}, "no custom resource found"},
		{[]string{"testdata/explain/missing.yaml"}, "no such file"},
		{[]string{"-o", "xml", "testdata/explain/foos.yaml"}, "use json or yaml"},
		// An --annotation that is not one of the seed's, or does not parse,
		// is refused: it used to block nothing and leave the gate open.
		{[]string{"--annotation", "Foo=X", "testdata/explain/foos.yaml"}, `--annotation: annotation olm.operatorframework.io/condition.Foo "X": OLM supports the conditions Upgradeable and Important, not "Foo"`},
		{[]string{"--annotation", "Important=A && B", "testdata/explain/foos.yaml"}, "Important expressions may only use ||"},
		{[]string{"--annotation", "Upgradeable=A ||", "testdata/explain/foos.yaml"}, `--annotation: annotation olm.operatorframework.io/condition.Upgradeable "A ||"`},
	} {
		_, err := explainTool(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// An expression that cannot be calculated blocks nothing (002 §Test
// Plan), but the gate is then not said to be open: one a CRD carries that
// is not the seed's or does not parse, or an Upgradeable one that is
// Unknown over a CR, makes it NOT CALCULATED, naming each.
func TestExplainUncalculatedIsNotOpen(t *testing.T) {
	dir := t.TempDir()
	crd := filepath.Join(dir, "crd.yaml")
	if err := os.WriteFile(crd, []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
  annotations:
    olm.operatorframework.io/condition.Foo: "X"
    olm.operatorframework.io/condition.Important: "A && B"
spec:
  group: example.com
  names: {kind: Foo}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{crd, "testdata/explain/foos.yaml"}, []string{`gate: NOT CALCULATED (reading holds)`, "2 expressions could not be calculated",
			`condition.Foo "X": OLM supports the conditions Upgradeable and Important, not "Foo"; annotation`, `condition.Important "A && B": column 3: Important expressions may only use ||`}},
		{[]string{"--annotation", "Upgradeable=NoSuchCondition", "testdata/explain/foos.yaml"}, []string{`gate: NOT CALCULATED`, `Upgradeable "NoSuchCondition" is Unknown`}},
	} {
		out, err := explainTool(t, tc.args...)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output does not say %q:\n%s", tc.args, w, out)
			}
		}
		if strings.Contains(out, "gate: open") {
			t.Errorf("%v: the gate is said open though nothing was calculated:\n%s", tc.args, out)
		}
	}
	out, err := explainTool(t, "-o", "json", crd, "testdata/explain/foos.yaml")
	var ex olm.Explanation
	if err != nil || json.Unmarshal([]byte(out), &ex) != nil || ex.Blocked || len(ex.Uncalculated) != 2 {
		t.Errorf("json: %v, %+v", err, ex)
	}
}

// FuzzExplain: whatever the files hold, explain answers or says what is
// wrong with the input; it never panics.
func FuzzExplain(f *testing.F) {
	for _, p := range []string{"testdata/explain/crd.yaml", "testdata/explain/foos.yaml"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "!Migrating")
	}
	f.Add([]byte(`{"kind":"Foo","status":{"conditions":[{"type":1},"x",null]}}`), "A || (B")
	f.Fuzz(func(t *testing.T, data []byte, expression string) {
		path := filepath.Join(t.TempDir(), "in.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := explainTool(t, "--annotation", "Upgradeable="+expression, path)
		if err == nil && !strings.Contains(out, "gate: ") {
			t.Errorf("no verdict on the gate:\n%s", out)
		}
	})
}
