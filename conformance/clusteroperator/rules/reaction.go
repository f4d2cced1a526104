package rules

import (
	"slices"
	"time"

	"github.com/opcert/opcert/reports"
)

// reactions are the reactions a rule measured, each from the change the
// operator had to report to the write that reported it, so that a team
// sees how close to the bound it is (judge.Verdict.Measures). A
// reaction never seen (the operator never reported it) is not measured:
// the failure says so.
type reactions struct {
	name string
	took []time.Duration
}

// add records one reaction; an answer that came before the change (an
// operator that announced it) took nothing.
func (r *reactions) add(d time.Duration) { r.took = append(r.took, max(d, 0)) }

// measures is the measure for the verdict, with the bound as its budget;
// none when nothing was measured.
func (r *reactions) measures(bound time.Duration) []reports.Measure {
	if len(r.took) == 0 {
		return nil
	}
	s := slices.Sorted(slices.Values(r.took))
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return []reports.Measure{{Name: r.name, Count: len(s), P50: at(0.5), P99: at(0.99), Max: s[len(s)-1], Budget: bound}}
}
