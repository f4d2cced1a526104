package olm_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/olm"
	"github.com/opcert/opcert/conformance/olm/rules"
	"github.com/opcert/opcert/scenarios"
)

// The mechanism states its reaction bound, 30s by default, and rebuilds
// its rules with another one (--reaction-bound olm=D).
func TestReactionBound(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	if conformance.ReactionOf(m) != rules.DefaultReaction {
		t.Fatalf("reaction bound %v, want the rules' default %v", conformance.ReactionOf(m), rules.DefaultReaction)
	}
	if rules.DefaultReaction != 30*time.Second {
		t.Fatalf("default reaction bound %v, want 30s", rules.DefaultReaction)
	}
	loose := m.(conformance.Reactive).WithReaction(2 * time.Minute)
	if conformance.ReactionOf(loose) != 2*time.Minute {
		t.Fatalf("WithReaction(2m): bound %v", conformance.ReactionOf(loose))
	}
	if s := loose.Rules()[0].Statement; !strings.Contains(s, "within the reaction bound of 2m0s") {
		t.Errorf("OLM-001 under a 2m bound says %q", s)
	}
}

// The aggregator role has two faithful variants and no other role has
// any: the olm role is OLM itself, which no team brings, and the
// operator role is played by a team's own operator (operator_test.go).
func TestFaithfulSubjects(t *testing.T) {
	for _, r := range olm.Mechanism(olm.DefaultConfig()).Roles() {
		n := 0
		for _, s := range r.Subjects {
			if s.Faithful {
				n++
			}
		}
		if want := map[string]int{olm.RoleAggregator: 2}[r.Name]; n != want {
			t.Errorf("role %s: %d faithful variants, want %d", r.Name, n, want)
		}
	}
}

// A scaled run (--time-scale) judges with the reaction bound scaled, and
// a real-time one adds its slack: the process-mode runs of the operator
// role play both.
func TestScaledAndTolerance(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	s, ok := m.(conformance.Scalable)
	if !ok {
		t.Fatal("olm cannot be scaled")
	}
	tolerant, ok := s.Scaled(0.1).(conformance.Tolerant)
	if !ok {
		t.Fatal("olm scaled cannot be given a tolerance")
	}
	scaled := tolerant.WithTolerance(time.Second)
	if conformance.ReactionOf(scaled) != 3*time.Second {
		t.Errorf("scaled by 0.1: reaction bound %v, want 3s", conformance.ReactionOf(scaled))
	}
	for _, r := range scaled.Rules() {
		if r.ID == "OLM-011" && !strings.Contains(r.Statement, "within the reaction bound of 4s") {
			t.Errorf("OLM-011 scaled by 0.1 with 1s of slack says %q", r.Statement)
		}
	}
	if conformance.ReactionOf(m) != rules.DefaultReaction {
		t.Errorf("scaling changed the mechanism it was made from: %v", conformance.ReactionOf(m))
	}
}

// The operator role takes a team's reconciler and executable; its
// command's placeholders are the ones processes.go gives. The aggregator
// takes an executable too, with {reading} besides; OLM none.
func TestOperatorRole(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	if !conformance.Takes(m, olm.RoleOperator, conformance.FormProcess) || !conformance.Takes(m, olm.RoleAggregator, conformance.FormProcess) || conformance.Takes(m, olm.RoleOLM, conformance.FormProcess) {
		t.Error("the operator and aggregator roles take an executable, OLM's does not")
	}
	if _, err := conformance.Subjects(m, map[string]string{olm.RoleAggregator: "exec:/bin/true --name {name} --crds {crds} --reading {reading}"}); err != nil {
		t.Errorf("the aggregator's placeholders: %v", err)
	}
	if _, err := conformance.Subjects(m, map[string]string{olm.RoleOperator: "exec:/bin/true --reading {reading}"}); err == nil {
		t.Error("the operator's command took {reading}, the aggregator's alone")
	}
	cast, err := conformance.Subjects(m, map[string]string{olm.RoleOperator: "exec:/bin/true --name {name} --namespace {namespace} --namespaces {namespaces} --crds {crds} --scale {timeScale}"})
	if err != nil {
		t.Fatal(err)
	}
	if cast[olm.RoleOperator].Name == "reference" {
		t.Error("the executable was not cast")
	}
	if _, err := conformance.Subjects(m, map[string]string{olm.RoleOperator: "exec:/bin/true --name {nmae}"}); err == nil || !strings.Contains(err.Error(), "{nmae}") {
		t.Errorf("a misspelled placeholder: %v", err)
	}
}

// On a cluster the operator takes the team's Deployment, the aggregator
// none; a run touches the two sample CRDs (their annotations, the hold)
// and the Deployment (its scale, each kill and restart of the operator),
// nothing with opcert's own operator.
func TestClusterTouches(t *testing.T) {
	m := olm.Mechanism(olm.DefaultConfig())
	if !conformance.Takes(m, olm.RoleOperator, conformance.FormCluster) || conformance.Takes(m, olm.RoleAggregator, conformance.FormCluster) {
		t.Error("the operator takes a Deployment, the aggregator does not")
	}
	sc, err := scenarios.Load("../../examples/olmoperator/testdata/oc-migration.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cl := m.(conformance.Clustered)
	cast, err := conformance.Subjects(m, map[string]string{olm.RoleOperator: "deployment:team/olmoperator"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range cl.Touches(sc, cast) {
		got = append(got, tc.Object())
	}
	want := []string{"CustomResourceDefinition.apiextensions.k8s.io bars.example.com", "CustomResourceDefinition.apiextensions.k8s.io foos.example.com",
		"Deployment.apps team/olmoperator", "Deployment.apps team/olmoperator", "Deployment.apps team/olmoperator"}
	if !slices.Equal(got, want) {
		t.Errorf("touches %q, want %q", got, want)
	}
	if ns := cl.Namespaces(sc); !slices.Equal(ns, []string{"default", "operators"}) {
		t.Errorf("namespaces %q", ns)
	}
	own, err := conformance.Subjects(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc := cl.Touches(sc, own); len(tc) != 0 || len(cl.Access(sc, own)) != 0 {
		t.Errorf("opcert's own operator touches %v", tc)
	}
}
