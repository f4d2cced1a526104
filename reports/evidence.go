package reports

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/opcert/opcert/sim/timeline"
	"github.com/opcert/opcert/visible"
)

// FormatEvent is FormatEventFrom the simulator's epoch.
func FormatEvent(e timeline.Event) string { return FormatEventFrom(e, timeline.Epoch) }

// FormatEventFrom renders one timeline event on one line, as the JUnit failure
// bodies and the Markdown evidence blocks show it:
//
//	+10m0s operator-a update-status Widget/default/w1 Ready: True/"ok" -> False/"stale"
//
// Time is the offset from origin (timeline.Epoch, where every simulated run
// starts, when zero; a recording's start), so evidence reads as "ten
// minutes in" rather than as a wall-clock date; a
// condition side that did not exist prints as "absent", and an
// expectation's condition as what it observed. The event's detail,
// if any, follows in parentheses, and a write the API server refused is
// marked [failed], because a refused write explains a missing change.
func FormatEventFrom(e timeline.Event, origin time.Time) string {
	if origin.IsZero() {
		origin = timeline.Epoch
	}
	var b strings.Builder
	d := e.Time.Sub(origin)
	if d >= 0 {
		b.WriteByte('+')
	}
	fmt.Fprintf(&b, "%s %s %s", fmtDur(d), e.Actor, e.Verb)
	if e.Object != (timeline.ObjectRef{}) {
		fmt.Fprintf(&b, " %s", e.Object)
	}
	for i, c := range e.Conditions {
		sep := "; "
		if i == 0 {
			sep = " "
		}
		if e.Verb == timeline.VerbExpect {
			fmt.Fprintf(&b, "%s%s: observed %s", sep, c.Type, conditionSide(c.After))
			continue
		}
		fmt.Fprintf(&b, "%s%s: %s -> %s", sep, c.Type, conditionSide(c.Before), conditionSide(c.After))
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", e.Detail)
	}
	if e.Failed {
		b.WriteString(" [failed]")
	}
	return visible.Line(b.String()) // actors, reasons, managers: anyone's text
}

func conditionSide(c *timeline.Condition) string {
	if c == nil {
		return "absent"
	}
	return fmt.Sprintf("%s/%q", c.Status, c.Message)
}

// Evidence lines elide what a reader of a failure does not need: an
// operator's message runs to hundreds of characters, and a change of one
// word in it is what matters.
const (
	briefText    = 72  // the most runes a message, field value or detail shows
	briefLine    = 144 // the most runes an event's messages show together, when more than two change
	briefMin     = 32  // the fewest runes a message shows however many change
	briefContext = 16  // runes kept either side of where two messages differ
)

// BriefEventFrom renders one event on one line naming only what changed,
// as the Markdown and JUnit evidence shows it (the JSON report keeps the
// whole event):
//
//	+10m0s operator-a update-status Widget/default/w1 Ready: True -> False, "ok" -> "stale"
//
// A condition that appeared or went shows its status and message; one that
// changed shows only the parts that changed (status, reason, message), a
// long message cut to where it differs; a registered field shows its two
// values. Long texts are elided in the middle, so both ends stay readable.
func BriefEventFrom(e timeline.Event, origin time.Time) string {
	if origin.IsZero() {
		origin = timeline.Epoch
	}
	var b strings.Builder
	d := e.Time.Sub(origin)
	if d >= 0 {
		b.WriteByte('+')
	}
	fmt.Fprintf(&b, "%s %s %s", fmtDur(d), e.Actor, e.Verb)
	if e.Object != (timeline.ObjectRef{}) {
		fmt.Fprintf(&b, " %s", e.Object)
	}
	if e.Target != "" {
		fmt.Fprintf(&b, " -> %s", e.Target)
	}
	// A write that changes many messages at once (a challenge prefixes
	// every one) shows less of each, so the line stays a line.
	limit, messages := briefText, 0
	for _, c := range e.Conditions {
		if c.Before == nil || c.After == nil || c.Before.Message != c.After.Message {
			messages++
		}
	}
	if messages > 2 {
		limit = max(briefMin, briefLine/messages)
	}
	var changes []string
	for _, c := range e.Conditions {
		if e.Verb == timeline.VerbExpect {
			changes = append(changes, c.Type+": "+observed(c.After, limit))
			continue
		}
		changes = append(changes, c.Type+": "+conditionChange(c, limit))
	}
	for _, f := range e.Fields {
		changes = append(changes, fmt.Sprintf("%s: %s -> %s", f.Path, fieldSide(f.Before), fieldSide(f.After)))
	}
	if len(changes) > 0 {
		b.WriteString(" " + strings.Join(changes, "; "))
	}
	if e.Detail != "" {
		fmt.Fprintf(&b, " (%s)", elide(oneLine(e.Detail), briefText))
	}
	if e.Failed {
		b.WriteString(" [failed]")
	}
	return visible.Line(b.String()) // actors, reasons, managers: anyone's text
}

// observed is a condition as an expectation read it (an expect event
// changes nothing: its condition has no before), status, reason and
// message.
func observed(c *timeline.Condition, limit int) string {
	if c == nil {
		return "observed absent"
	}
	s := "observed " + c.Status
	if c.Reason != "" {
		s += "/" + c.Reason
	}
	return s + " " + quoteBrief(c.Message, limit)
}

// conditionChange names what a write changed of one condition.
func conditionChange(c timeline.ConditionChange, limit int) string {
	switch {
	case c.Before == nil && c.After == nil:
		return "absent"
	case c.Before == nil:
		return "absent -> " + c.After.Status + " " + quoteBrief(c.After.Message, limit)
	case c.After == nil:
		return c.Before.Status + " -> absent"
	}
	before, after := c.Before, c.After
	var parts []string
	if before.Status != after.Status {
		parts = append(parts, before.Status+" -> "+after.Status)
	}
	if before.Reason != after.Reason {
		parts = append(parts, "reason "+orNone(before.Reason)+" -> "+orNone(after.Reason))
	}
	if before.Message != after.Message {
		b, a := messageDiff(before.Message, after.Message, limit)
		parts = append(parts, b+" -> "+a)
	}
	if len(parts) == 0 {
		return "unchanged " + after.Status // rewritten as it was (a new transition time at most)
	}
	return strings.Join(parts, ", ")
}

// messageDiff quotes two messages cut to where they differ: the common
// start and end beyond a few runes of context become "…".
func messageDiff(before, after string, limit int) (string, string) {
	b, a := []rune(oneLine(before)), []rune(oneLine(after))
	if len(b) <= limit && len(a) <= limit {
		return strconv.QuoteToGraphic(string(b)), strconv.QuoteToGraphic(string(a))
	}
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		p++
	}
	s := 0
	for s < len(b)-p && s < len(a)-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	// A cut saves at least briefContext runes, or it is not made.
	from := p - briefContext
	if from <= briefContext {
		from = 0
	}
	cut := func(r []rune) string {
		to := len(r) - s + briefContext
		if len(r)-to <= briefContext {
			to = len(r)
		}
		text := elide(string(r[from:to]), limit)
		if from > 0 {
			text = "…" + text
		}
		if to < len(r) {
			text += "…"
		}
		return strconv.QuoteToGraphic(text)
	}
	return cut(b), cut(a)
}

// quoteBrief quotes a message elided to limit runes. Quoting keeps
// "…" and other printable runes as they are.
func quoteBrief(s string, limit int) string {
	return strconv.QuoteToGraphic(elide(oneLine(s), limit))
}

// fieldSide is one side of a field change: its JSON text elided, or
// "absent".
func fieldSide(v []byte) string {
	if v == nil {
		return "absent"
	}
	return elide(string(v), briefText/2)
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// elide cuts s to at most n runes by replacing its middle with "…", so a
// message's subject (its start) and its verdict (often its end) both stay.
func elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}
