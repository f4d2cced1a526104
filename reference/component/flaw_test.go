package component

import (
	"slices"
	"strings"
	"testing"
)

// Each flaw deviates from the reference in exactly the fields named, at
// the looks named, over the same story; everything else it writes, asks
// for and waits for is the reference's.
func TestFlawsDeviateOnlyAsNamed(t *testing.T) {
	for _, tc := range []struct {
		flaw    Flaw
		section string
		fields  []string
		looks   []int // indices into story where it shows
	}{
		{EarlyVersion, "001 §Version reporting during an upgrade", []string{"versions", "Available.message"}, []int{5, 6, 7, 8, 9}},
		{NeverProgressing, "001 §What should an operator report, honored by components 3",
			[]string{"Progressing.status", "Progressing.reason", "Progressing.message", "Progressing.lastTransitionTime"}, []int{0, 1, 4, 5, 6, 7, 8, 9}},
		{EarlyAvailable, "001 §What should an operator report, honored by components 1",
			[]string{"Available.status", "Available.reason", "Available.message", "Available.lastTransitionTime"}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{SplitWrite, "001 §Status", []string{"split"}, []int{2, 10}},
		{SilentUpgradeable, "001 §What should an operator report, honored by components 4", []string{"Upgradeable.message"}, []int{3}},
		{SilentDegraded, "001 §Conditions", []string{"Degraded.message"}, []int{7, 8}},
		{StaleCompletion, "001 §Version reporting during an upgrade", []string{"Progressing.lastTransitionTime"}, []int{2, 3, 10, 11}},
	} {
		t.Run(string(tc.flaw), func(t *testing.T) {
			ref, got := walk(story), walk(story, tc.flaw)
			var shown []int
			for i := range story {
				d := differences(ref[i], got[i])
				if len(d) == 0 {
					continue
				}
				shown = append(shown, i)
				for _, f := range d {
					if !slices.Contains(tc.fields, f) {
						t.Errorf("look %d (+%v): %s differs, beyond %s (%s)", i, story[i].at, f, strings.Join(tc.fields, ", "), tc.section)
					}
				}
			}
			if !slices.Equal(shown, tc.looks) {
				t.Errorf("deviates at looks %v, want %v", shown, tc.looks)
			}
		})
	}
}

// Every flaw is listed, and none is in the reference.
func TestFlawsListed(t *testing.T) {
	if len(Flaws()) != 7 {
		t.Errorf("Flaws() = %v", Flaws())
	}
	for _, f := range Flaws() {
		if DefaultParams("example", "4.0.1").has(f) {
			t.Errorf("the reference has %s", f)
		}
	}
}

// SplitWrite's two updates at a completion: the new conditions with the
// old versions first, a status that is not valid together (001 §Status),
// then both.
func TestSplitWriteOrder(t *testing.T) {
	ref, got := walk(story), walk(story, SplitWrite)
	const completion = 10
	w := got[completion].out.Writes
	if len(w) != 2 {
		t.Fatalf("%d writes at the completion, want 2", len(w))
	}
	if !sameConditions(w[0].Conditions, ref[completion].after.Conditions) || !sameVersions(w[0].Versions, ref[completion].in.Status.Versions) {
		t.Errorf("first write %+v, want the new conditions with the old versions", w[0])
	}
	if !sameConditions(w[1].Conditions, ref[completion].after.Conditions) || !sameVersions(w[1].Versions, ref[completion].after.Versions) {
		t.Errorf("second write %+v, want the reference's status", w[1])
	}
}
