package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// demo is a mechanism's part of the format as the loader sees it: a World
// of its own, a string action and a struct action, its condition types, a
// check of its own and a built-in. The real mechanisms' formats are tested
// in their packages (conformance/stale).
type demoWorld struct {
	Nodes []string `yaml:"nodes"`
	Chaos *Chaos   `yaml:"chaos,omitempty"`
}

type demoSet struct {
	Node  string `yaml:"node"`
	Value int    `yaml:"value"`
}

func init() {
	RegisterKind(Kind{
		Mechanism:  "demo",
		World:      reflect.TypeFor[demoWorld](),
		Actions:    demoActions,
		Expects:    schema.GroupVersionKind{Group: "demo.example.com", Version: "v1", Kind: "Widget"},
		Conditions: []string{"Ready"},
		Roles:      []string{"operator", "watcher"},
		Validate: func(c *Check, s *Scenario) {
			w := s.World.(*demoWorld)
			for i, st := range s.Steps {
				if name, ok := st.Arg.(string); ok && !contains(w.Nodes, name) {
					c.Errorf(stepPath(i)+"."+st.Action, "no node %q", name)
				}
			}
			c.Chaos("chaos", w.Chaos, len(w.Nodes))
		},
		Builtins: fstest.MapFS{
			"01-demo.yaml": {Data: []byte(demo)},
			"README.md":    {Data: []byte("not a scenario")},
		},
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func stepPath(i int) string { return "steps[" + string(rune('0'+i)) + "]" }

// demo's steps start on line 5.
const demo = `name: demo-one
mechanism: demo
duration: 1h
nodes: [a, b]
steps:
  - at: 1m
    poke: a
  - advance: 1m
    set: {node: b, value: 3}
  - expect: {object: w, condition: Ready, status: "True"}
`

func TestKindDecodesWorldAndActions(t *testing.T) {
	s, err := Parse("f.yaml", []byte(demo))
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := s.World.(*demoWorld); !ok || strings.Join(w.Nodes, ",") != "a,b" {
		t.Errorf("World = %#v, want nodes a, b", s.World)
	}
	if st := s.Steps[0]; st.Action != "poke" || st.Arg != "a" || st.Time.String() != "1m0s" || st.Line != 6 {
		t.Errorf("steps[0] = %+v, want poke a at 1m on line 6", st)
	}
	if st := s.Steps[1]; st.Action != "set" || *st.Arg.(*demoSet) != (demoSet{Node: "b", Value: 3}) || st.Time.String() != "2m0s" {
		t.Errorf("steps[1] = %+v, want set {b 3} at 2m", st)
	}
	if st := s.Steps[2]; st.Action != "" || st.Expect == nil || st.Time.String() != "2m0s" {
		t.Errorf("steps[2] = %+v, want an expect at 2m", st)
	}
}

func TestKindErrors(t *testing.T) {
	with := func(old, new string) string { return strings.Replace(demo, old, new, 1) }
	for _, tc := range []struct{ name, in, want string }{
		{"mechanism missing", with("mechanism: demo\n", ""), "f.yaml:1: mechanism: required; known mechanisms: demo"},
		{"mechanism unknown", with("mechanism: demo", "mechanism: nope"), `f.yaml:2: mechanism: "nope" is not known; known mechanisms: demo`},
		{"unknown top field", with("nodes:", "nodez:"), `f.yaml:4: unknown field "nodez"; a demo scenario takes: name, description, mechanism, duration, steps, nodes, chaos`},
		{"world field twice", demo + "nodes: [c]\n", "f.yaml:11: nodes: given twice (first at line 4)"},
		{"unknown action", with("poke: a", "prod: a"), `f.yaml:7: steps[0]: unknown field "prod"; a step takes one of: at, advance, create, expect, apiErrors, perturb, poke, set`},
		{"two actions", with("poke: a", "poke: a\n    set: {node: a}"), "f.yaml:6: steps[0]: has poke and set; give each action its own step"},
		{"action and expect", with("poke: a", "poke: a\n    expect: {object: w, condition: Ready, status: \"True\"}"), "f.yaml:6: steps[0]: has poke and expect"},
		{"empty action", with("poke: a", `poke: ""`), "f.yaml:6: steps[0]: no action; a step takes one of: create, poke, set, expect, apiErrors"},
		{"struct action field", with("value: 3", "valu: 3"), `f.yaml:9: steps[1].set: unknown field "valu"; set takes: node, value`},
		{"kind's own check", with("poke: a", "poke: c"), `f.yaml:7: steps[0].poke: no node "c"`},
		{"condition type", with("condition: Ready", "condition: Available"), `f.yaml:10: steps[2].expect.condition: "Available" is not a Widget condition type; use one of: Ready`},
		{"kind without apiVersion", with("object: w,", "object: w, kind: Pod,"), "f.yaml:10: steps[2].expect: give kind and apiVersion together"},
		{"chaos through the kind", demo + "chaos: {meanUptime: 1h, downtime: {min: 1m, max: 2m}, hang: 2}\n", "f.yaml:11: chaos.hang: 2 is not a fraction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// Another kind's action or World field is not this kind's.
func TestKindsAreApart(t *testing.T) {
	_, err := Parse("f.yaml", []byte("name: x\nmechanism: demo\nduration: 1h\noperators: []\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown field "operators"`) {
		t.Errorf("error %v, want operators refused", err)
	}
}

func TestBuiltinComesFromKinds(t *testing.T) {
	all, err := Builtin()
	if err != nil || len(all) != 1 || all[0].Name != "demo-one" || all[0].Source != "builtin:01-demo.yaml" {
		t.Fatalf("Builtin() = %v, %v; want demo-one from builtin:01-demo.yaml", all, err)
	}
	for _, name := range []string{"demo-one", "01-demo", "01-demo.yaml"} {
		if s, err := BuiltinNamed(name); err != nil || s.Name != "demo-one" {
			t.Errorf("BuiltinNamed(%q) = %v, %v", name, s, err)
		}
	}
	if _, err := BuiltinNamed("nope"); err == nil || !strings.Contains(err.Error(), "available: demo-one") {
		t.Errorf("want an error listing the names, got %v", err)
	}
}

func TestRegisterKindRefusesClashes(t *testing.T) {
	for _, k := range []Kind{
		{Mechanism: "demo"},
		{Mechanism: "other", Actions: Actions(Act("expect", (*demoNodes).poke))},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterKind(%+v) did not panic", k)
				}
			}()
			RegisterKind(k)
		}()
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	s, err := Parse("f.yaml", []byte(demo+"chaos: {seed: 3, meanUptime: 1h, downtime: {min: 1m, max: 2m}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	s.Steps = append(s.Steps, Step{Time: 5 * time.Minute, Create: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "x"}}})
	if diff, err := RoundTrip(s); err != nil || diff != "" {
		t.Fatalf("RoundTrip: %v %s", err, diff)
	}
	s.Steps[0].Arg = "b"
	data, _ := Encode(s)
	if back, _ := Parse("f.yaml", data); back.Steps[0].Arg != "b" {
		t.Errorf("an edited step was not written: %s", data)
	}
}
