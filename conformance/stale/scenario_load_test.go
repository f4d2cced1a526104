package stale

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opcert/opcert/scenarios"
)

// base is a valid scenario; its steps start on line 9.
const base = `name: t
mechanism: stale
duration: 1h
operators:
  - name: etcd
    conditions:
      - {type: Available, status: "True", reason: AsExpected}
`

func withSteps(steps string) string { return base + "steps:\n" + steps }

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string // the first is the position and field path
	}{
		// Decoding.
		{"empty", "", []string{"f.yaml:1: the file is empty"}},
		{"comments only", "# nothing\n", []string{"f.yaml:1: the file is empty"}},
		{"syntax", "name: t\n  mechanism: stale\n", []string{"f.yaml:2: not valid YAML"}},
		{"two documents", base + "---\nname: u\n", []string{"f.yaml:8: a second YAML document", "split the file"}},
		{"not a mapping", "- a\n", []string{"f.yaml:1: want fields (name, description, mechanism"}},
		{"unknown top field", base + "operator: x\n", []string{`f.yaml:8: unknown field "operator"; a stale scenario takes: name, description`}},
		{"unknown action", withSteps("  - at: 1m\n    killOperator: etcd\n  - explodeOperator: etcd\n"),
			[]string{`f.yaml:11: steps[1]: unknown field "explodeOperator"; a step takes one of: at, advance, create, expect, apiErrors, perturb, killOperator, restartOperator, hangOperator, reconnectOperator, setCondition, slowOperator, killDetector, restartDetector`}},
		{"unknown condition field", strings.Replace(base, "status:", "staus:", 1), []string{`f.yaml:7: operators[0].conditions[0]: unknown field "staus"; a condition takes: type, status, reason, message`}},
		{"unknown setCondition field", withSteps("  - setCondition: {operator: etcd, type: Available, status: \"True\", reason: A, colour: red}\n"),
			[]string{`f.yaml:9: steps[0].setCondition: unknown field "colour"; setCondition takes: operator, type, status`}},
		{"duplicate field", base + "name: u\n", []string{"f.yaml:8: name: given twice (first at line 1)"}},
		{"duration without unit", strings.Replace(base, "1h", "600", 1), []string{`f.yaml:3: duration: 600 has no unit; add one, like "600s"`}},
		{"duration unreadable", strings.Replace(base, "1h", "ten minutes", 1), []string{`f.yaml:3: duration: "ten minutes" is not a duration; write it like "10m"`}},
		{"duration mapping", strings.Replace(base, "1h", "{h: 1}", 1), []string{"f.yaml:3: duration: want a duration"}},
		{"count not a number", strings.Replace(base, "- name: etcd", "- name: etcd\n    count: many", 1), []string{`f.yaml:6: operators[0].count: want a whole number, got "many"`}},
		{"hang not a number", base + "chaos: {seed: 1, meanUptime: 1h, downtime: {min: 1m, max: 2m}, hang: [1]}\n", []string{"f.yaml:8: chaos.hang: want a number, got a list"}},
		{"operators not a list", "name: t\nmechanism: stale\nduration: 1h\noperators: etcd\n", []string{`f.yaml:4: operators: want a list (items starting with '- '), got "etcd"`}},
		{"create not an object", withSteps("  - create: pod\n"), []string{`f.yaml:9: steps[0].create: want a Kubernetes object`}},
		{"create duplicate key", withSteps("  - create: {apiVersion: v1, kind: A, kind: B, metadata: {name: a}}\n"), []string{"f.yaml:9: steps[0].create.kind: given twice"}},
		{"create complex key", withSteps("  - create: {[a]: b}\n"), []string{"f.yaml:9: steps[0].create: want a field name, got a list"}},
		{"alias cycle", withSteps("  - create: &x {apiVersion: v1, kind: A, metadata: {name: a}, spec: *x}\n"), []string{"f.yaml:9: steps[0].create.spec: this alias refers to a node that contains it"}},
		{"alias bomb", aliasBomb(), []string{"f.yaml:9: steps[0].create: the object is larger than 1 MiB as JSON"}},
		// Each object is under the size limits, but together they are too many nodes.
		{"alias bomb across steps", withSteps("  - create:\n      apiVersion: v1\n      kind: A\n      metadata: {name: a}\n      spec:\n" + aliasLevels(5) +
			strings.Repeat("  - create: {apiVersion: v1, kind: A, metadata: {name: b}, spec: *l5}\n", 10)),
			[]string{"steps[9].create.spec", "expands to more than 1048576 YAML nodes"}},

		// Scenario.
		{"name missing", strings.Replace(base, "name: t\n", "", 1), []string{"f.yaml:1: name: required"}},
		{"name not a label", strings.Replace(base, "name: t", "name: Bad_Name", 1), []string{`f.yaml:1: name: "Bad_Name" is not a DNS-1123 label`}},
		{"name too long", strings.Replace(base, "name: t", "name: "+strings.Repeat("a", 41), 1), []string{"f.yaml:1: name:", "at most 40"}},
		{"mechanism missing", strings.Replace(base, "mechanism: stale\n", "", 1), []string{"f.yaml:1: mechanism: required; known mechanisms: stale"}},
		{"mechanism unknown", strings.Replace(base, "mechanism: stale", "mechanism: olm", 1), []string{`f.yaml:2: mechanism: "olm" is not known; known mechanisms: stale`}},
		{"duration missing", strings.Replace(base, "duration: 1h\n", "", 1), []string{"f.yaml:1: duration: required"}},
		{"duration negative", strings.Replace(base, "1h", "-1h", 1), []string{"f.yaml:3: duration: -1h0m0s is out of range"}},
		{"duration too long", strings.Replace(base, "1h", "721h", 1), []string{"f.yaml:3: duration: 721h0m0s is out of range", "30 days"}},

		// Operators.
		{"operator name missing", strings.Replace(base, "- name: etcd", "- count: 0", 1), []string{"f.yaml:5: operators[0].name: required"}},
		{"operator name too long", strings.Replace(base, "name: etcd", "name: "+strings.Repeat("e", 64), 1), []string{"f.yaml:5: operators[0].name:", "at most 55"}},
		{"fleet name too long", strings.Replace(base, "- name: etcd", "- name: "+strings.Repeat("e", 61)+"\n    count: 2", 1), []string{"f.yaml:5: operators[0].name:", "at most 52"}},
		{"operator name bad", strings.Replace(base, "name: etcd", "name: etcd.io", 1), []string{`f.yaml:5: operators[0].name: "etcd.io" is not a DNS-1123 label`}},
		{"count negative", strings.Replace(base, "- name: etcd", "- name: etcd\n    count: -1", 1), []string{"f.yaml:6: operators[0].count: -1 is out of range"}},
		{"count too big", strings.Replace(base, "- name: etcd", "- name: etcd\n    count: 501", 1), []string{"f.yaml:6: operators[0].count: 501 is out of range", "up to 500"}},
		{"names clash after expansion", base + "  - name: etcd-02\n    conditions: [{type: Available, status: \"True\", reason: A}]\n  - name: etcd\n    count: 3\n    conditions: [{type: Available, status: \"True\", reason: A}]\n",
			[]string{`f.yaml:10: operators[2].name: operator "etcd-02" is also declared by operators[1] (line 8)`}},
		{"answerDelay negative", strings.Replace(base, "- name: etcd", "- name: etcd\n    answerDelay: -1s", 1), []string{"f.yaml:6: operators[0].answerDelay: -1s is negative"}},
		{"conditions missing", "name: t\nmechanism: stale\nduration: 1h\noperators:\n  - name: etcd\n", []string{"f.yaml:5: operators[0].conditions: required"}},
		{"condition type missing", strings.Replace(base, "type: Available, ", "", 1), []string{"f.yaml:7: operators[0].conditions[0].type: required; use one of: Available, Degraded, Failing, Progressing, Upgradeable"}},
		{"condition type unknown", strings.Replace(base, "Available", "Ready", 1), []string{`f.yaml:7: operators[0].conditions[0].type: "Ready" is not a ClusterOperator condition type`}},
		{"condition type twice", base + "      - {type: Available, status: \"False\", reason: B}\n", []string{"f.yaml:8: operators[0].conditions[1].type: Available is given twice (first at line 7)"}},
		{"status bad", strings.Replace(base, `"True"`, "yes", 1), []string{`f.yaml:7: operators[0].conditions[0].status: "yes" is not a condition status; use one of: True, False, Unknown`}},
		{"status missing", strings.Replace(base, `status: "True", `, "", 1), []string{"f.yaml:7: operators[0].conditions[0].status: required"}},
		{"reason missing", strings.Replace(base, ", reason: AsExpected", "", 1), []string{"f.yaml:7: operators[0].conditions[0].reason: required"}},
		{"reason bad", strings.Replace(base, "AsExpected", "As Expected", 1), []string{`f.yaml:7: operators[0].conditions[0].reason: "As Expected" is not a valid reason`}},
		{"reason ends badly", strings.Replace(base, "AsExpected", "AsExpected:", 1), []string{`f.yaml:7: operators[0].conditions[0].reason: "AsExpected:" is not a valid reason`}},
		{"message too long", strings.Replace(base, "AsExpected}", "AsExpected, message: "+strings.Repeat("x", 32769)+"}", 1), []string{"f.yaml:7: operators[0].conditions[0].message: is 32769 bytes long"}},

		// Steps.
		{"no action", withSteps("  - at: 1m\n"), []string{"f.yaml:9: steps[0]: no action; a step takes one of: create, killOperator"}},
		{"two actions", withSteps("  - killOperator: etcd\n    hangOperator: etcd\n"), []string{"f.yaml:9: steps[0]: has killOperator and hangOperator; give each action its own step"}},
		{"empty action", withSteps("  - killOperator: \"\"\n"), []string{"f.yaml:9: steps[0]: no action"}},
		{"killDetector false", withSteps("  - killDetector: false\n"), []string{"f.yaml:9: steps[0].killDetector: false is no action; write killDetector: true, or leave the step out"}},
		{"at negative", withSteps("  - at: -1m\n    killOperator: etcd\n"), []string{"f.yaml:9: steps[0].at: -1m0s is negative"}},
		{"advance negative", withSteps("  - advance: -1m\n    killOperator: etcd\n"), []string{"f.yaml:9: steps[0].advance: -1m0s is negative"}},
		{"backwards", withSteps("  - at: 10m\n    killOperator: etcd\n  - at: 5m\n    restartOperator: etcd\n"), []string{"f.yaml:11: steps[1].at: 5m0s is before steps[0] (line 9) at 10m0s"}},
		{"backwards after advance", withSteps("  - at: 5m\n    advance: 5m\n    killOperator: etcd\n  - at: 9m\n    restartOperator: etcd\n"), []string{"f.yaml:12: steps[1].at: 9m0s is before steps[0] (line 9) at 10m0s"}},
		{"after the end", withSteps("  - at: 61m\n    killOperator: etcd\n"), []string{"f.yaml:9: steps[0]: happens after the scenario ends (duration 1h0m0s)"}},
		{"advance past the end", withSteps("  - at: 59m\n    killOperator: etcd\n  - advance: 2m\n"), []string{"f.yaml:11: steps[1]: happens after the scenario ends"}},
		{"huge advance", withSteps("  - advance: 2562047h\n  - advance: 2562047h\n"), []string{"f.yaml:9: steps[0]: happens after the scenario ends"}},
		{"unknown operator", withSteps("  - killOperator: etc\n"), []string{`f.yaml:9: steps[0].killOperator: no operator "etc"; declared: etcd`}},
		{"unknown fleet member", strings.Replace(base, "- name: etcd", "- name: etcd\n    count: 10", 1) + "steps:\n  - restartOperator: etcd-11\n",
			[]string{`f.yaml:10: steps[0].restartOperator: no operator "etcd-11"; declared: etcd-01..etcd-10`}},
		{"hang unknown", withSteps("  - hangOperator: x\n"), []string{"f.yaml:9: steps[0].hangOperator: no operator"}},
		{"reconnect unknown", withSteps("  - reconnectOperator: x\n"), []string{"f.yaml:9: steps[0].reconnectOperator: no operator"}},
		{"setCondition operator missing", withSteps("  - setCondition: {type: Available, status: \"True\", reason: A}\n"), []string{"f.yaml:9: steps[0].setCondition.operator: required"}},
		{"setCondition operator unknown", withSteps("  - setCondition: {operator: x, type: Available, status: \"True\", reason: A}\n"), []string{`f.yaml:9: steps[0].setCondition.operator: no operator "x"`}},
		{"setCondition bad status", withSteps("  - setCondition:\n      operator: etcd\n      type: Available\n      status: Maybe\n      reason: A\n"), []string{`f.yaml:12: steps[0].setCondition.status: "Maybe" is not a condition status`}},
		{"expect object missing", withSteps("  - expect: {condition: Available, status: \"True\"}\n"), []string{"f.yaml:9: steps[0].expect.object: required"}},
		{"expect object unknown", withSteps("  - expect: {object: x, condition: Available, status: \"True\"}\n"), []string{`f.yaml:9: steps[0].expect.object: no ClusterOperator "x"; declared operators: etcd`}},
		{"expect condition missing", withSteps("  - expect: {object: etcd, status: \"True\"}\n"), []string{"f.yaml:9: steps[0].expect.condition: required"}},
		{"expect condition unknown", withSteps("  - expect: {object: etcd, condition: Ready, status: \"True\"}\n"), []string{`f.yaml:9: steps[0].expect.condition: "Ready" is not a ClusterOperator condition type`}},
		{"expect checks nothing", withSteps("  - expect: {object: etcd, condition: Available}\n"), []string{"f.yaml:9: steps[0].expect: checks nothing; give at least one of status, reason, message, messagePrefix"}},
		{"expect bad status", withSteps("  - expect: {object: etcd, condition: Available, status: true}\n"), []string{`f.yaml:9: steps[0].expect.status: "true" is not a condition status`}},
		{"create apiVersion missing", withSteps("  - create: {kind: Pod, metadata: {name: a}}\n"), []string{"f.yaml:9: steps[0].create.apiVersion: required"}},
		{"create kind missing", withSteps("  - create: {apiVersion: v1, metadata: {name: a}}\n"), []string{"f.yaml:9: steps[0].create.kind: required"}},
		{"create name missing", withSteps("  - create:\n      apiVersion: v1\n      kind: Pod\n      metadata: {}\n"), []string{"f.yaml:12: steps[0].create.metadata.name: required"}},

		// Chaos.
		{"meanUptime missing", base + "chaos: {seed: 1, downtime: {min: 1m, max: 2m}}\n", []string{"f.yaml:8: chaos.meanUptime: must be more than 0"}},
		{"downtime min zero", base + "chaos: {seed: 1, meanUptime: 1h, downtime: {min: 0s, max: 2m}}\n", []string{"f.yaml:8: chaos.downtime.min: must be more than 0"}},
		{"downtime max below min", base + "chaos:\n  meanUptime: 1h\n  downtime:\n    min: 5m\n    max: 1m\n", []string{"f.yaml:12: chaos.downtime.max: 1m0s is less than min 5m0s"}},
		{"downtime max too long", base + "chaos: {meanUptime: 1h, downtime: {min: 1m, max: 800h}}\n", []string{"f.yaml:8: chaos.downtime.max: 800h0m0s is longer than any run"}},
		{"hang above one", base + "chaos: {meanUptime: 1h, downtime: {min: 1m, max: 2m}, hang: 1.5}\n", []string{"f.yaml:8: chaos.hang: 1.5 is not a fraction"}},
		{"hang NaN", base + "chaos: {meanUptime: 1h, downtime: {min: 1m, max: 2m}, hang: .nan}\n", []string{"f.yaml:8: chaos.hang: NaN is not a fraction"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scenarios.Parse("f.yaml", []byte(tc.in))
			if err == nil {
				t.Fatalf("Parse succeeded (%+v); want an error containing %q", s, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "f.yaml:") {
				t.Errorf("error %q does not start with the source", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// aliasLevels writes mappings l1..ln, indented for a create's spec, where
// l1 is a list of ten scalars and each next level ten aliases of the last.
func aliasLevels(n int) string {
	var b strings.Builder
	b.WriteString("        l1: &l1 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 2; i <= n; i++ {
		fmt.Fprintf(&b, "        l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// aliasBomb is a create object of a few lines that expands to ten million scalars.
func aliasBomb() string {
	return withSteps("  - create:\n      apiVersion: v1\n      kind: A\n      metadata: {name: a}\n      spec:\n" + aliasLevels(6))
}

func TestParseReportsEveryProblem(t *testing.T) {
	in := strings.Replace(strings.Replace(base, "name: t", "name: T", 1), "AsExpected", "", 1)
	_, err := scenarios.Parse("f.yaml", []byte(in))
	if err == nil || !strings.Contains(err.Error(), "f.yaml:1: name:") || !strings.Contains(err.Error(), "\nf.yaml:7: operators[0].conditions[0].reason: required") {
		t.Fatalf("want both problems, one per line; got %v", err)
	}
}

func TestParseResolvesTimes(t *testing.T) {
	s, err := scenarios.Parse("f.yaml", []byte(withSteps(`  - advance: 1m        # 1m
  - killOperator: etcd  # still 1m
  - at: 5m
    advance: 30s        # 5m30s
    restartOperator: etcd
  - advance: 1m         # 6m30s
    expect: {object: etcd, condition: Available, status: True}
`)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.Steps {
		got = append(got, fmt.Sprintf("%v@%d", st.Time, st.Line))
	}
	if want := "1m0s@9 1m0s@10 5m30s@11 6m30s@14"; strings.Join(got, " ") != want {
		t.Errorf("times@lines = %s, want %s", strings.Join(got, " "), want)
	}
	if st := s.Steps[3].Expect.Status; st != "True" {
		t.Errorf("unquoted True read as %q", st)
	}
}

func TestParseCreatedClusterOperatorIsExpectable(t *testing.T) {
	_, err := scenarios.Parse("f.yaml", []byte(withSteps(`  - create: {apiVersion: config.openshift.io/v1, kind: ClusterOperator, metadata: {name: orphan}}
  - expect: {object: orphan, condition: Available, status: Unknown}
`)))
	if err != nil {
		t.Fatal(err)
	}
}

func TestFleetDefaultsAnswerDelay(t *testing.T) {
	s, err := scenarios.Parse("f.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	f := scenarioWorld(s).Fleet()
	if len(f) != 1 || f[0].Name != "etcd" || f[0].AnswerDelay.String() != "1s" {
		t.Errorf("Fleet() = %+v, want etcd with answerDelay 1s", f)
	}
}

func TestReadmeExampleParses(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(readme), "```yaml\n")
	example, _, _ := strings.Cut(rest, "```")
	if _, err := scenarios.Parse("README.md", []byte(example)); err != nil {
		t.Fatal(err)
	}
}
