package scenarios

import (
	"context"
	"fmt"
	"reflect"
	"strings"
)

// A mechanism declares each step action once, with the Go type of its value
// and the function that carries it out on what the mechanism's Build makes
// (its world, W): Act. The list of them (Actions) is both the mechanism's
// part of the format, read at init with no world (Kind.Actions: names and
// value types) and, bound to the world a run built (On), what carries out
// the run's steps. So no action is declared without its handler, and no
// mechanism looks up an action by its name or asserts its value's type.

// Action is one step action as the format reads it: the step's field name
// and the type of its value (a string, or a struct type: Step.Arg then
// holds a pointer to a new value of it).
type Action struct {
	Name string       // the step's field that takes it
	Type reflect.Type // its value's type
}

// Handler is an action with what carries it out on a world W (Act).
type Handler[W any] struct {
	Action
	do func(w W, ctx context.Context, arg any) error
}

// Act declares the action name, whose step value is a T, carried out on a
// world W by do: a method expression ((*world).Kill) or a function
// literal. do is given the step's value (a copy of it for a struct type).
// A nil do is a programming error, and panics.
func Act[W, T any](name string, do func(w W, ctx context.Context, arg T) error) Handler[W] {
	if do == nil {
		panic(fmt.Sprintf("scenarios: action %q declared without its handler", name))
	}
	t := reflect.TypeFor[T]()
	return Handler[W]{Action: Action{Name: name, Type: t}, do: func(w W, ctx context.Context, arg any) error {
		switch v := arg.(type) {
		case T:
			return do(w, ctx, v)
		case *T:
			return do(w, ctx, *v)
		}
		return fmt.Errorf("action %s takes a %s, not a %T", name, t, arg)
	}}
}

// Handlers are a mechanism's actions with their handlers on its world W,
// in the order messages list them (Actions makes them).
type Handlers[W any] struct{ list []Handler[W] }

// Actions lists a mechanism's actions, each declared once (Act). A name
// given twice, or a Handler not made by Act, is a programming error, and
// panics.
func Actions[W any](handlers ...Handler[W]) *Handlers[W] {
	seen := map[string]bool{}
	for _, h := range handlers {
		if h.do == nil {
			panic(fmt.Sprintf("scenarios: action %q declared without its handler", h.Name))
		}
		if seen[h.Name] {
			panic(fmt.Sprintf("scenarios: action %q declared twice", h.Name))
		}
		seen[h.Name] = true
	}
	return &Handlers[W]{list: handlers}
}

// Declared is the actions as the format reads them (Kind.Actions).
func (h *Handlers[W]) Declared() []Action {
	out := make([]Action, len(h.list))
	for i, x := range h.list {
		out[i] = x.Action
	}
	return out
}

// On binds the actions to w, the world a run's Build made: what carries
// out the run's steps.
func (h *Handlers[W]) On(w W) *Bound {
	b := &Bound{list: h, do: make(map[string]func(context.Context, any) error, len(h.list))}
	for _, x := range h.list {
		b.do[x.Name] = func(ctx context.Context, arg any) error { return x.do(w, ctx, arg) }
		b.names = append(b.names, x.Name)
	}
	return b
}

func (*Handlers[W]) handlers() {}

// ActionSet is a Handlers of any world, as Kind.Actions holds it; only
// Actions makes one, so every action a kind declares has its handler.
type ActionSet interface {
	// Declared is the actions as the format reads them.
	Declared() []Action
	handlers()
}

// Bound is a mechanism's actions bound to the world of a run (On).
type Bound struct {
	list  ActionSet // what it was bound from
	do    map[string]func(context.Context, any) error
	names []string
}

// Do carries out a step's action with its value (Step.Action, Step.Arg).
func (b *Bound) Do(ctx context.Context, action string, arg any) error {
	do, err := b.handler(action)
	if err != nil {
		return err
	}
	return do(ctx, arg)
}

// Handles tells whether a step of sc that takes action can be carried out
// here: the action has its handler, bound from the very list sc's kind
// declares (when sc's mechanism registered one), so that a world bound to
// another list is found out even where that list has the action. If not,
// an error that says why, for the run to refuse before it starts.
func (b *Bound) Handles(sc *Scenario, action string) error {
	if _, err := b.handler(action); err != nil {
		return err
	}
	if k, ok := kindOf(sc.Mechanism); ok && k.Actions != b.list {
		return fmt.Errorf("the run's world was bound to another list of actions than the %s kind declares", k.Mechanism)
	}
	return nil
}

// handler is what carries out action; none is an error that says what is
// bound.
func (b *Bound) handler(action string) (func(context.Context, any) error, error) {
	if b == nil {
		return nil, fmt.Errorf("no handler is bound for action %s: no actions are bound to the run's world", action)
	}
	do, ok := b.do[action]
	if !ok {
		return nil, fmt.Errorf("no handler is bound for action %s; bound: %s", action, strings.Join(b.names, ", "))
	}
	return do, nil
}
