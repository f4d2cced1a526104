package scenarios_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/scenarios"
)

// A mechanism brings its part of the format: here a made-up one, lamp,
// whose scenarios declare the lamps of a room and switch and dim them.

// lampWorld holds the top-level fields a lamp scenario declares beside the
// shared ones (Kind.World).
type lampWorld struct {
	Lamps []string `yaml:"lamps"`
}

// Dim is the value of the dim action: a struct, whose fields the step
// gives as YAML fields.
type Dim struct {
	Lamp  string `yaml:"lamp"`
	Level int    `yaml:"level"`
}

// room is what a run builds from a scenario, and what the actions act on.
type room struct{ level map[string]int }

// lampActions declares each action once, with the type of its value and
// what carries it out on a room: the format reads the names and types, a
// run binds the handlers to its room (On).
var lampActions = scenarios.Actions(
	scenarios.Act("switchOn", func(r *room, _ context.Context, lamp string) error {
		r.level[lamp] = 100
		return nil
	}),
	scenarios.Act("dim", func(r *room, _ context.Context, d Dim) error {
		r.level[d.Lamp] = d.Level
		return nil
	}),
)

// The mechanism registers its kind once, from its package's init (a
// conformance.Plugin does it for a mechanism of opcert's).
func init() {
	scenarios.RegisterKind(scenarios.Kind{
		Mechanism:  "lamp",
		World:      reflect.TypeFor[lampWorld](),
		Actions:    lampActions,
		Expects:    schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		Conditions: []string{"Lit"},
		// Validate checks what the shared checks cannot: here, that a
		// step names a lamp of the room.
		Validate: func(c *scenarios.Check, s *scenarios.Scenario) {
			lamps := s.World.(*lampWorld).Lamps
			for i, st := range s.Steps {
				lamp := ""
				switch arg := st.Arg.(type) {
				case string:
					lamp = arg
				case *Dim:
					lamp = arg.Lamp
				}
				if lamp != "" && !slices.Contains(lamps, lamp) {
					c.Errorf(fmt.Sprintf("steps[%d].%s", i, st.Action), "no lamp %q; lamps: %s", lamp, strings.Join(lamps, ", "))
				}
			}
		},
	})
}

const evening = `name: lamp-evening
mechanism: lamp
duration: 1h
lamps: [desk, hall]
steps:
  - at: 10m
    switchOn: desk
  - advance: 20m
    dim: {lamp: desk, level: 30}
`

// A scenario file is parsed and validated at once, its steps' times
// resolved; a run binds the kind's actions to the world it built and
// carries out each step at its time. A mistake is refused with its file,
// line and field path, and what to do.
func Example() {
	sc, err := scenarios.Parse("evening.yaml", []byte(evening))
	if err != nil {
		fmt.Println(err)
		return
	}
	r := &room{level: map[string]int{}}
	steps := lampActions.On(r)
	for _, st := range sc.Steps {
		if err := steps.Do(context.Background(), st.Action, st.Arg); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (line %d) %s: desk at %d%%\n", st.Time, st.Line, st.Action, r.level["desk"])
	}

	_, err = scenarios.Parse("attic.yaml", []byte(strings.Replace(evening, "switchOn: desk", "switchOn: attic", 1)))
	fmt.Println(err)
	// Output:
	// 10m0s (line 6) switchOn: desk at 100%
	// 30m0s (line 8) dim: desk at 30%
	// attic.yaml:7: steps[0].switchOn: no lamp "attic"; lamps: desk, hall
}
