package reports

import (
	"bytes"
	"fmt"
	"strings"
	"time"
)

// Recording is how a run judged from a recording was recorded: where
// from, what it covers, how late the recorder saw the writes, the
// tolerance the rules were given for it, and the gaps in it.
type Recording struct {
	// Source is the API server recorded, or the file analyzed.
	Source string `json:"source"`
	// Format is what the source held: "live" (opcert watch),
	// "opcert-jsonl" or "kubectl-watch-json".
	Format string    `json:"format"`
	Events int64     `json:"events"`        // how many events it holds
	From   time.Time `json:"from,omitzero"` // its first event's time
	To     time.Time `json:"to,omitzero"`   // its last event's time
	// Lag is the time from each write (its managedFields time, kept to the
	// second) to when the recorder saw it, over the writes it watched; none
	// for a timeline that is not a recording.
	Lag *Lag `json:"lag,omitempty"`
	// Tolerance is the slack the rules allowed on deadlines for it.
	Tolerance time.Duration `json:"toleranceNanos"`
	// Gaps are the spans in which writes may be missing.
	Gaps []Gap `json:"gaps,omitempty"`
	// Writers are who wrote in the recording (a field manager of a live
	// cluster's, an actor of a played run's) and the role each one's writes
	// were put down to, in name order: a recording whose detector writes
	// under a manager the flags did not name shows it here.
	Writers []Writer `json:"writers,omitempty"`
}

// Writer is one writer of a recording.
type Writer struct {
	// Name is the field manager (a live cluster's) or the actor (a
	// played run's).
	Name string `json:"name"`
	// Role is the role its writes were put down to ("" for none).
	Role string `json:"role,omitempty"`
	// Writes is how many writes it made.
	Writes int64 `json:"writes"`
}

// writers says who wrote, and as what: "opcert as detector (3 writes)".
func (r *Recording) writers() string {
	var out []string
	for _, w := range r.Writers {
		role := w.Role
		if role == "" {
			role = "no role"
		}
		out = append(out, fmt.Sprintf("%s as %s (%d writes)", w.Name, role, w.Writes))
	}
	return strings.Join(out, ", ")
}

// Lag is a distribution of the recorder's lag.
type Lag struct {
	Count int           `json:"count"`    // how many writes were measured
	P50   time.Duration `json:"p50Nanos"` // the median lag
	P99   time.Duration `json:"p99Nanos"` // the 99th percentile
	Min   time.Duration `json:"minNanos"` // the smallest
	Max   time.Duration `json:"maxNanos"` // the largest
}

// Gap is a span of a recording in which writes may be missing: the rules
// did not judge what falls in it.
type Gap struct {
	From time.Time `json:"from"` // where it starts
	To   time.Time `json:"to"`   // where it ends
	Why  string    `json:"why"`  // what was lost (a watch that broke, events dropped)
	// Open says the recording ended in it, never listing again what it
	// lost: To is the recording's end.
	Open bool `json:"open,omitempty"`
}

// until is where the gap ends: an instant, or the recording's end for one
// never resumed.
func (g Gap) until() string {
	if g.Open {
		return "the end, never resumed"
	}
	return g.To.UTC().Format(time.RFC3339Nano)
}

// writeRecording says, in Markdown, how the run was recorded.
func writeRecording(b *bytes.Buffer, r *Recording) {
	fmt.Fprintf(b, "Recorded from %s (%s): %d events", mdInline(r.Source), mdInline(r.Format), r.Events)
	if !r.From.IsZero() {
		fmt.Fprintf(b, " from %s to %s (%s)", r.From.UTC().Format(time.RFC3339Nano), r.To.UTC().Format(time.RFC3339Nano), fmtDur(r.To.Sub(r.From)))
	}
	b.WriteString(".")
	if l := r.Lag; l != nil && l.Count > 0 {
		fmt.Fprintf(b, " Recorder lag (seen minus written, the API server keeping the second): p50 %s, p99 %s, min %s, max %s over %d writes.",
			fmtDur(l.P50), fmtDur(l.P99), fmtDur(l.Min), fmtDur(l.Max), l.Count)
	}
	fmt.Fprintf(b, " Rules judged with a tolerance of %s on deadlines.", fmtDur(r.Tolerance))
	if len(r.Writers) > 0 {
		fmt.Fprintf(b, " Writers: %s.", mdInline(r.writers()))
	}
	b.WriteString("\n\n")
	for _, g := range r.Gaps {
		fmt.Fprintf(b, "- Recording gap from %s to %s (%s): not judged.\n", g.From.UTC().Format(time.RFC3339Nano), g.until(), mdInline(g.Why))
	}
	if len(r.Gaps) > 0 {
		b.WriteString("\n")
	}
}
