package rules

import (
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

// reactions are the reactions a rule measured, each from the change the
// operator had to report to the write that reported it, so that a team
// sees how close to the bound it is (judge.Verdict.Measures). A
// reaction never seen (the operator never reported it) is not measured:
// the failure says so.
type reactions struct {
	name string
	took judge.Latencies
}

// add records one reaction; an answer that came before the change (an
// operator that announced it) took nothing.
func (r *reactions) add(d time.Duration) { r.took.Add(max(d, 0)) }

// measures is the measure for the verdict, with the bound as its budget;
// none when nothing was measured.
func (r *reactions) measures(bound time.Duration) []reports.Measure {
	if r.took.Count() == 0 {
		return nil
	}
	return []reports.Measure{r.took.Measure(r.name, bound)}
}
