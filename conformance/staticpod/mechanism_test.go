package staticpod_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod"
	"github.com/opcert/opcert/scenarios"
)

// A role given a subject of a type the mechanism does not know (an
// executable where the role takes none), a team's reconciler where it
// takes a team's core (library mode), or a team's core of the wrong
// interface is refused with an error naming the role and the type, before
// anything is built: no panic.
func TestBuildRefusesForeignSubjects(t *testing.T) {
	sc, err := scenarios.BuiltinNamed("staticpod-healthy-rollout")
	if err != nil {
		t.Fatal(err)
	}
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	foreign := []struct {
		impl any
		typ  string
		want func(role string) string
	}{
		{conformance.Reconciler{New: func(conformance.Instance) (reconcile.Reconciler, error) { return nil, nil }}, "conformance.Reconciler",
			func(role string) string { return "staticpod: the " + role + " role takes a team's Go core" }},
		{conformance.Core{New: func() any { return 42 }}, "conformance.Core of an int",
			func(role string) string {
				return "staticpod: the team's core for the " + role + " role is int, not a contract."
			}},
		{conformance.Process{}, "conformance.Process", nil},
		{nil, "<nil>", nil},
	}
	for _, role := range []string{staticpod.RoleStartupMonitor, staticpod.RoleInstaller, staticpod.RoleOperator, staticpod.RolePruner} {
		for _, f := range foreign {
			if _, ok := f.impl.(conformance.Process); ok && conformance.Takes(m, role, conformance.FormProcess) {
				continue // the startup-monitor's executable (process_test.go)
			}
			cast, err := conformance.Subjects(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			cast[role] = conformance.Subject{Name: "team", Impl: f.impl}
			var actions conformance.Actions
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s played by %s: panic %v", role, f.typ, r)
					}
				}()
				actions, err = m.Build(context.Background(), nil, sc, cast)
			}()
			want := "staticpod: the " + role + " role cannot be played by " + f.typ
			matches := err != nil && err.Error() == want
			if f.want != nil {
				want = f.want(role)
				matches = err != nil && strings.HasPrefix(err.Error(), want)
			}
			if !matches || actions != nil {
				t.Errorf("%s played by %s: %v, %v; want the error %q", role, f.typ, actions, err, want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: a multi-line error %q", role, err)
			}
		}
	}
}

// The mechanism states its reaction bound (1m: rules.DefaultReaction) and
// is judged with another through WithReaction (--reaction-bound): the
// rules that judge a reaction say the bound they were built with.
func TestReactionBound(t *testing.T) {
	m := staticpod.Mechanism(staticpod.DefaultConfig())
	r, reactive := m.(conformance.Reactive)
	if conformance.ReactionOf(m) != time.Minute || !reactive {
		t.Fatalf("reaction %s, Reactive %v; want 1m and Reactive", conformance.ReactionOf(m), reactive)
	}
	tight := r.WithReaction(20 * time.Second)
	if conformance.ReactionOf(tight) != 20*time.Second {
		t.Errorf("WithReaction(20s).Reaction = %s", conformance.ReactionOf(tight))
	}
	for _, r := range tight.Rules() {
		if r.ID == "STATICPOD-012" && !strings.Contains(r.Statement, "within the reaction bound (20s)") {
			t.Errorf("STATICPOD-012 with a 20s bound: %q", r.Statement)
		}
	}
	if conformance.ReactionOf(m) != time.Minute {
		t.Errorf("WithReaction changed the mechanism it was called on: %s", conformance.ReactionOf(m))
	}
}
