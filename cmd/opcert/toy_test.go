package main

import (
	"context"
	"os"
	"reflect"
	"testing/fstest"

	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
)

// A mechanism the built-ins no longer have: one that cannot scale its
// times and whose only role takes no team's executable nor Deployment, so
// that the refusals of playable.go stay tested (every built-in mechanism
// now does both). It is registered only in opcert started with toyEnv set
// (opcertWithToy), so that no other test sees it in a listing or a run.
const (
	toyEnv      = "OPCERT_TEST_TOY"
	toyName     = "toy"
	toyScenario = "toy-lamp"
	toyRole     = "keeper"
)

func init() {
	if os.Getenv(toyEnv) != "1" {
		return
	}
	conformance.Register(conformance.Plugin{Name: toyName, Seed: "900",
		Flags: func(*pflag.FlagSet) func() (conformance.Mechanism, error) {
			return func() (conformance.Mechanism, error) { return toyMechanism(), nil }
		},
		Scenarios: scenarios.Kind{
			World:   reflect.TypeFor[struct{}](),
			Actions: toyActions,
			Expects: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
			Builtins: fstest.MapFS{toyScenario + ".yaml": {Data: []byte("name: " + toyScenario + "\nmechanism: " + toyName +
				"\ndescription: a world with nothing in it\nduration: 1m\n")}},
		}})
}

// toyMechanism has one role, played by opcert's own keeper only, and is
// not Scalable: its world is empty and it judges nothing, which is all a
// plan needs of it.
func toyMechanism() conformance.Mechanism {
	roles := []conformance.Role{{Name: toyRole, Cannot: conformance.NoForm(toyCannot),
		Subjects: []conformance.Subject{{Name: "reference", Description: "keeps nothing"}}}}
	return toy{conformance.Declare(toyName, "900", roles, nil,
		func(context.Context, *conformance.Stage, *scenarios.Scenario, conformance.Cast) (conformance.Actions, error) {
			return toyActions.On(emptyWorld{}), nil
		})}
}

const toyCannot = "a test's mechanism: it plays only its own keeper"

// toy is the mechanism: the contract and the reasons for what it lacks.
type toy struct{ conformance.Declared }

func (toy) Cannot() map[string]string {
	return map[string]string{conformance.CannotWatch: toyCannot, conformance.CannotStream: toyCannot}
}

// emptyWorld is the toy's world: its scenarios have no action.
type emptyWorld struct{}

var toyActions = scenarios.Actions[emptyWorld]()
