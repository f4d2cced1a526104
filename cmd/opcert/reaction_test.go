package main

import (
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/conformance"
)

// --reaction-bound rebuilds the mechanisms that judge reactions, one
// value for all or one per mechanism (its own winning), and refuses
// values out of range and mechanisms that do not exist or judge none.
func TestReactionFlag(t *testing.T) {
	mechs := func() map[string]*conformance.Mechanism {
		var bounded func(d time.Duration) *conformance.Mechanism
		bounded = func(d time.Duration) *conformance.Mechanism {
			return &conformance.Mechanism{Name: "a", Reaction: d, WithReaction: bounded}
		}
		return map[string]*conformance.Mechanism{"a": bounded(30 * time.Second), "b": {Name: "b"}}
	}
	for _, tc := range []struct {
		name string
		args []string
		want time.Duration // a's bound
		err  string
	}{
		{"none given", nil, 30 * time.Second, ""},
		{"for all", []string{"5s"}, 5 * time.Second, ""},
		{"for one", []string{"a=1m"}, time.Minute, ""},
		{"its own beats all", []string{"a=1m", "0s"}, time.Minute, ""},
		{"zero", []string{"0"}, 0, ""},
		{"negative", []string{"-1s"}, 0, "out of range"},
		{"over an hour", []string{"a=61m"}, 0, "out of range"},
		{"not a duration", []string{"soon"}, 0, "not a duration"},
		{"no such mechanism", []string{"c=1s"}, 0, "no such mechanism; mechanisms: a, b"},
		{"judges no reaction", []string{"b=1s"}, 0, "judges no reaction"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReactionFlag()
			var err error
			for _, a := range tc.args {
				if err = f.Set(a); err != nil {
					break
				}
			}
			m := mechs()
			if err == nil {
				err = f.apply(m)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m["a"].Reaction != tc.want || m["b"].Reaction != 0 {
				t.Errorf("bounds a %s, b %s; want %s, 0", m["a"].Reaction, m["b"].Reaction, tc.want)
			}
		})
	}
}
