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
	mechs := func() map[string]conformance.Mechanism {
		return map[string]conformance.Mechanism{"a": reactive{conformance.Declare("a", "", nil, nil, nil), 30 * time.Second},
			"b": conformance.Declare("b", "", nil, nil, nil)}
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
			if conformance.ReactionOf(m["a"]) != tc.want || conformance.ReactionOf(m["b"]) != 0 {
				t.Errorf("bounds a %s, b %s; want %s, 0", conformance.ReactionOf(m["a"]), conformance.ReactionOf(m["b"]), tc.want)
			}
		})
	}
}

// reactive is a mechanism of a test that judges reactions within its
// bound.
type reactive struct {
	conformance.Declared
	bound time.Duration
}

func (r reactive) Reaction() time.Duration { return r.bound }

func (r reactive) WithReaction(d time.Duration) conformance.Mechanism { return reactive{r.Declared, d} }
