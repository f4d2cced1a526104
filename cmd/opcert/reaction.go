package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/opcert/opcert/conformance"
)

// maxReaction is the loosest --reaction-bound: an hour is already longer
// than any resync a controller is built with (library-go's is a minute,
// controller-runtime's default ten hours are a safety net, not a
// reaction), and a looser bound would excuse an operator that never
// reacts within a scenario's span.
const maxReaction = time.Hour

// reactionFlag is --reaction-bound, repeatable: "D" sets the bound of
// every mechanism that judges reactions, "MECH=D" one mechanism's (later
// values win; a mechanism's own beats the one for all). Values are
// checked when parsed, mechanism names when the mechanisms are built.
type reactionFlag struct {
	all    *time.Duration
	byMech map[string]time.Duration
	given  []string
}

func newReactionFlag() *reactionFlag { return &reactionFlag{byMech: map[string]time.Duration{}} }

func (f *reactionFlag) String() string { return strings.Join(f.given, ",") }

func (f *reactionFlag) Type() string { return "[MECH=]DURATION" }

// GetSlice, Append and Replace make the flag a pflag.SliceValue: a
// report keeps each value given (mechanismFlags.given), in order.
func (f *reactionFlag) GetSlice() []string { return f.given }

func (f *reactionFlag) Append(s string) error { return f.Set(s) }

func (f *reactionFlag) Replace(values []string) error {
	*f = *newReactionFlag()
	for _, v := range values {
		if err := f.Set(v); err != nil {
			return err
		}
	}
	return nil
}

func (f *reactionFlag) Set(s string) error {
	mech, value, scoped := strings.Cut(s, "=")
	if !scoped {
		value = mech
	}
	d, err := time.ParseDuration(value)
	if err != nil {
		return fmt.Errorf("%q is not a duration: give e.g. 30s, or MECHANISM=30s for one mechanism", value)
	}
	if d < 0 || d > maxReaction {
		return fmt.Errorf("%s is out of range: give 0 (react at the instant) to %s", d, maxReaction)
	}
	if scoped {
		f.byMech[mech] = d
	} else {
		f.all = &d
	}
	f.given = append(f.given, s)
	return nil
}

// apply rebuilds each mechanism with the bound the flag gives it. A
// mechanism named that does not exist, or judges no reaction, is the
// input's fault.
func (f *reactionFlag) apply(mechs map[string]conformance.Mechanism) error {
	names := make([]string, 0, len(f.byMech))
	for n := range f.byMech {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m, ok := mechs[n]
		if !ok {
			return fmt.Errorf("--reaction-bound %s=%s: no such mechanism; mechanisms: %s", n, f.byMech[n], strings.Join(sortedKeys(mechs), ", "))
		}
		if _, reactive := m.(conformance.Reactive); !reactive {
			return fmt.Errorf("--reaction-bound %s=%s: mechanism %s judges no reaction (its seed fixes every deadline)", n, f.byMech[n], n)
		}
	}
	for n, m := range mechs {
		d, ok := f.byMech[n]
		if !ok && f.all != nil {
			d, ok = *f.all, true
		}
		if r, reactive := m.(conformance.Reactive); ok && reactive {
			mechs[n] = r.WithReaction(d)
		}
	}
	return nil
}
