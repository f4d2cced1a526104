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
	mechs := map[string]*conformance.Mechanism{}
	for _, m := range all {
		mechs[m.Name] = m
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
		{"olm.operator=x", `no mechanism "olm"`},
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
