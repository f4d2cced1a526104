package scenarios

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// demoNodes is the demo kind's world as a run builds it: what its actions
// did, in order.
type demoNodes struct{ did []string }

func (n *demoNodes) poke(_ context.Context, node string) error {
	n.did = append(n.did, "poke "+node)
	return nil
}

// demoActions are the demo kind's actions (kind_test.go), each declared
// once: by a method expression, and by a function literal.
var demoActions = Actions(
	Act("poke", (*demoNodes).poke),
	Act("set", func(n *demoNodes, _ context.Context, s demoSet) error {
		n.did = append(n.did, fmt.Sprintf("set %s=%d", s.Node, s.Value))
		return nil
	}),
)

// The declaration is what the format reads (names and value types, in
// order) and, bound to a world, what carries out a parsed scenario's
// steps, each handler given its step's value typed.
func TestActionsCarryOutParsedSteps(t *testing.T) {
	want := []Action{{Name: "poke", Type: reflect.TypeFor[string]()}, {Name: "set", Type: reflect.TypeFor[demoSet]()}}
	if got := demoActions.Declared(); !reflect.DeepEqual(got, want) {
		t.Errorf("Declared() = %v, want %v", got, want)
	}
	s, err := Parse("f.yaml", []byte(demo))
	if err != nil {
		t.Fatal(err)
	}
	n := &demoNodes{}
	b := demoActions.On(n)
	for _, st := range s.Steps {
		if st.Action == "" {
			continue
		}
		if err := b.Do(context.Background(), st.Action, st.Arg); err != nil {
			t.Fatalf("%s: %v", st.Action, err)
		}
	}
	// A struct value given as it is, not through a pointer (a step built
	// in code), is carried out the same.
	if err := b.Do(context.Background(), "set", demoSet{Node: "a", Value: 1}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"poke a", "set b=3", "set a=1"}; !slices.Equal(n.did, want) {
		t.Errorf("the world did %q, want %q", n.did, want)
	}
}

// What cannot be carried out is an error that says why, not a panic: an
// action bound to no handler, no actions bound at all, a value of another
// type than the action's.
func TestBoundActionsRefuseWhatTheyCannotCarryOut(t *testing.T) {
	var none *Bound
	for _, tc := range []struct {
		b      *Bound
		action string
		arg    any
		want   string
	}{
		{demoActions.On(&demoNodes{}), "prod", "a", "no handler is bound for action prod; bound: poke, set"},
		{none, "poke", "a", "no handler is bound for action poke: no actions are bound to the run's world"},
		{demoActions.On(&demoNodes{}), "poke", 3, "action poke takes a string, not a int"},
		{demoActions.On(&demoNodes{}), "set", &demoWorld{}, "action set takes a scenarios.demoSet, not a *scenarios.demoWorld"},
	} {
		if err := tc.b.Do(context.Background(), tc.action, tc.arg); err == nil || err.Error() != tc.want {
			t.Errorf("Do(%s, %v) = %v, want %q", tc.action, tc.arg, err, tc.want)
		}
	}
}

// A world bound to a list without a step's action, or to another list
// than the scenario's kind declares, is found out before its run starts
// (Handles); a step would meet the same missing handler.
func TestBoundHandlesItsKindsListOnly(t *testing.T) {
	s, err := Parse("f.yaml", []byte(demo))
	if err != nil {
		t.Fatal(err)
	}
	if err := demoActions.On(&demoNodes{}).Handles(s, "set"); err != nil {
		t.Errorf("the demo's actions do not handle its set: %v", err)
	}
	pokeOnly := Actions(Act("poke", (*demoNodes).poke)).On(&demoNodes{})
	want := "no handler is bound for action set; bound: poke"
	if err := pokeOnly.Handles(s, "set"); err == nil || err.Error() != want {
		t.Errorf("Handles(set) = %v, want %q", err, want)
	}
	if err := pokeOnly.Do(context.Background(), "set", demoSet{}); err == nil || err.Error() != want {
		t.Errorf("Do(set) = %v, want %q", err, want)
	}
	want = "the run's world was bound to another list of actions than the demo kind declares"
	if err := pokeOnly.Handles(s, "poke"); err == nil || err.Error() != want {
		t.Errorf("Handles(poke) = %v, want %q", err, want)
	}
}

// An action declared without its handler, or twice, is a programming
// error caught at init.
func TestActionsRefuseIncompleteDeclarations(t *testing.T) {
	for name, declare := range map[string]func(){
		"no handler": func() { Act[*demoNodes, string]("poke", nil) },
		"not by Act": func() { Actions(Handler[*demoNodes]{Action: Action{Name: "poke", Type: reflect.TypeFor[string]()}}) },
		"twice":      func() { Actions(Act("poke", (*demoNodes).poke), Act("poke", (*demoNodes).poke)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: did not panic", name)
				}
			}()
			declare()
		}()
	}
}
