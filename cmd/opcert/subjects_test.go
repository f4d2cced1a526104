package main

import (
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
)

// --subject is scoped per mechanism: both mechanisms have an operator role.
func TestParseSubjectsScopesRoles(t *testing.T) {
	all, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	mechs := map[string]conformance.Mechanism{}
	for _, m := range all {
		mechs[m.Name()] = m
	}
	for _, tc := range []struct {
		flag, want string // want: mechanism.role=subject chosen, or the error's text
	}{
		{"operator=slow", "stale.operator=slow"}, // only stale's operator has slow
		{"staticpod.operator=never-degraded", "staticpod.operator=never-degraded"},
		{"stale.operator=deaf", "stale.operator=deaf"},
		{"operator=reference", "stale.operator=reference staticpod.operator=reference"}, // both have it
		{"janitor=x", `no role "janitor" in any mechanism`},
		{"operator=sluggish", `no subject "sluggish" for role operator`},
		{"nosuch.operator=x", `no mechanism "nosuch"`},
		// No role of that name takes the form: each says why.
		{"version-operator=deployment:ops/cvo", "role clusteroperator.version-operator cannot be played by a Deployment (cluster mode): the version operator is the cluster's own"},
		{"startup-monitor=deployment:ops/monitor", "role staticpod.startup-monitor cannot be played by a Deployment (cluster mode): a Deployment on a cluster cannot see a simulated node's files"},
	} {
		got, err := parseSubjects([]string{tc.flag}, mechs)
		if err != nil {
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.flag, err, tc.want)
			}
			continue
		}
		var chosen []string
		for _, mech := range []string{"stale", "staticpod"} {
			for role, subject := range got[mech] {
				chosen = append(chosen, mech+"."+role+"="+subject)
			}
		}
		if strings.Join(chosen, " ") != tc.want {
			t.Errorf("%s: chose %q, want %q", tc.flag, chosen, tc.want)
		}
	}
}

// An executable given for a role without its mechanism plays that role in
// the one mechanism the run's scenarios have it in; when several would
// take it, the run is refused until the mechanism is named.
func TestUnscopedExecutableMustBeUnambiguous(t *testing.T) {
	r := opcert(t, nil, "run", "--dry-run", "--subject", "operator=exec:/bin/true")
	if r.code != 2 || !strings.Contains(r.stderr, "the scenarios of clusteroperator and olm and stackable and stale all have a role operator that takes it; name the mechanism (clusteroperator.operator=...)") {
		t.Errorf("all built-ins: exit %d, stderr %q; want 2 and the mechanisms named", r.code, r.stderr)
	}
	for _, args := range [][]string{
		{"--scenario", "stale-hang", "--subject", "operator=exec:/bin/true"},
		{"--subject", "stale.operator=exec:/bin/true"},
	} {
		if r := opcert(t, nil, append([]string{"run", "--dry-run"}, args...)...); r.code != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 0", args, r.code, r.stderr)
		}
	}
}
