package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// noAsks is the verdict of the operator rules that judge its asks on a
// timeline that records none.
func noAsks() judge.Verdict {
	return judge.Verdict{Status: reports.Skip, Message: "not judged: the timeline records none of the operator's asks (" + fieldNodeStatuses + " on its ClusterOperator, timeline contract)"}
}

// STATICPOD-006: a revision fallen back from for a no-retry reason is
// never asked of the installer again by the operator. The reason judged is
// the annotation's, the one the operator reads (whether it is right is
// STATICPOD-002's question). Installs are not judged: an installer that
// was stopped mid-install finishes its old ask when it comes back, which
// is no decision of the operator's.
func (c Config) noRetry(j *judge.Judging) judge.Verdict {
	if len(c.NoRetry) == 0 {
		return judge.Verdict{Status: reports.Skip, Message: fmt.Sprintf("not judged: the %s profile retries after every reason (docs/upstream.md)", c.Profile)}
	}
	f := c.factsOf(j)
	if !f.asksRecorded {
		return noAsks()
	}
	var v finding
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback || !slices.Contains(c.NoRetry, in.note.reason) {
				continue
			}
			failed := n.failedRevision(i)
			v.Judged++
			for _, a := range n.asks {
				if a.pos > in.pos && a.revision == failed {
					v.Fail(fmt.Sprintf("%s: revision %d, fallen back from at %s with reason %s, was asked again of the installer at %s: no retry after %s",
						n.name, failed, j.Offset(in.at()), in.note.reason, j.Offset(a.ev.Time), strings.Join(c.NoRetry, " or ")), in.ev, a.ev)
					break
				}
			}
		}
	}
	return v.verdict("no fallback with reason " + strings.Join(c.NoRetry, " or ") + " in this run")
}

// STATICPOD-007: a retriable failed revision that is still the target is asked
// of the installer again (003 §Retries, decision 003,
// conformance/staticpod/README.md): not before FirstRetry after its fallback
// (">=N minutes, N=O(10)"), each retry's wait no shorter than the one before
// ("exponential backoff", with the reaction bound as slack: an operator at its
// cap jitters by its resync), and never more than MaxBackoff after the mirror
// pod showed the fallback, plus the reaction bound ("moving up to 6h maximum";
// retries are infinite). How fast the wait grows and where it stops growing
// (6h, library-go's 2h) the seed leaves open. What is judged is the operator's
// ask (the operator retries the roll-out), not the installer's writes, which
// come when the installer gets to it (STATICPOD-014). The wait runs from the
// fallback's write for the lower bounds and from the mirror pod showing it,
// the first moment the operator can know, for the upper one. A fallback the
// operator did not ask for (the installer finishing an old ask) is no retry:
// its own retry is judged alike.
func (c Config) backoffKept(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	if !f.asksRecorded {
		return noAsks()
	}
	var v finding
	var waits []time.Duration
	for _, n := range f.nodes {
		// per failed revision, the wait of its last retry the operator was
		// up for with its calls answered, from the mirror pod showing the
		// fallback to the ask
		prev := map[int]time.Duration{}
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			failed := n.failedRevision(i)
			if slices.Contains(c.NoRetry, in.note.reason) {
				continue // STATICPOD-006
			}
			what := fmt.Sprintf("%s: revision %d, fallen back from at %s with reason %s", n.name, failed, j.Offset(in.at()), in.note.reason)
			seen := n.seen(i, j)
			retry, later := n.nextAsk(in.pos), n.nextFallback(i)
			if later != nil && retry != nil && later.pos < retry.pos {
				retry = nil // the later fallback comes first: it has its own retry
			}
			if retry != nil && retry.revision == failed {
				wait := retry.ev.Time.Sub(in.at())
				waits = append(waits, wait)
				c.judgeRetry(f, in, seen, retry, prev[failed], what, j, &v)
				// A wait the operator's outage or failing calls stretched
				// says nothing of its back-off.
				if seen != nil && !f.procs.Unreachable(operatorActor, seen.ev.Time, retry.ev.Time) {
					prev[failed] = retry.ev.Time.Sub(seen.ev.Time)
				}
				continue
			}
			if seen == nil {
				v.Skip(what + ": the mirror pod never showed the fallback, so the operator could not know")
				continue
			}
			due := seen.ev.Time.Add(c.MaxBackoff)
			stop, stopping := j.End, "the end of the run at "+j.Offset(j.End)
			switch {
			case retry != nil:
				stop, stopping = retry.ev.Time, fmt.Sprintf("the operator asked for revision %d at %s", retry.revision, j.Offset(retry.ev.Time))
			case later != nil:
				stop, stopping = later.at(), fmt.Sprintf("the next fallback on the node at %s", j.Offset(later.at()))
			}
			switch {
			case !stop.After(due.Add(c.late())):
				v.Skip(fmt.Sprintf("%s: the retry was not due before %s", what, stopping))
			case f.procs.DownDuring(operatorActor, seen.ev.Time, due.Add(c.late())):
				v.Skip(what + ": the operator was down before the retry was due")
			default:
				v.Judged++
				v.Fail(fmt.Sprintf("%s, shown on the mirror pod at %s, was not retried within %s (by %s with the reaction bound %s), nor before %s: retries are infinite, %s apart at most",
					what, j.Offset(seen.ev.Time), c.MaxBackoff, j.Offset(due.Add(c.late())), c.Reaction, stopping, c.MaxBackoff), in.ev, seen.ev)
			}
		}
	}
	out := v.verdict("no retriable fallback in this run")
	if len(waits) > 0 {
		out.Measures = []reports.Measure{measure("retry wait (fallback to ask)", waits, c.MaxBackoff+c.late())}
	}
	return out
}

// judgeRetry judges the operator's retry of a fallback's failed revision:
// not before FirstRetry after the fallback's write; from the mirror pod
// showing it (the operator's clock), not shorter than the wait before
// (prev, zero if none) and not later than MaxBackoff and the reaction
// bound.
func (c Config) judgeRetry(f facts, in *install, seen *podWrite, retry *ask, prev time.Duration, what string, j *judge.Judging, v *finding) {
	wait := retry.ev.Time.Sub(in.at())
	late := seen != nil && retry.ev.Time.After(seen.ev.Time.Add(c.MaxBackoff+c.late()))
	switch {
	case wait < c.FirstRetry-c.Tolerance:
		v.Judged++
		v.Fail(fmt.Sprintf("%s, was retried at %s, %s after it: sooner than %s", what, j.Offset(retry.ev.Time), wait, c.FirstRetry), in.ev, retry.ev)
	case prev > 0 && seen != nil && retry.ev.Time.Sub(seen.ev.Time) < prev-c.late():
		v.Judged++
		v.Fail(fmt.Sprintf("%s, was retried at %s, %s after the mirror pod showed it: sooner than the retry before, %s after its fallback showed (the back-off grows, %s of slack)",
			what, j.Offset(retry.ev.Time), retry.ev.Time.Sub(seen.ev.Time), prev, c.late()), in.ev, retry.ev)
	case late && f.procs.DownDuring(operatorActor, seen.ev.Time, retry.ev.Time):
		v.Skip(what + ": the operator was down before its late retry")
	case late:
		v.Judged++
		v.Fail(fmt.Sprintf("%s, shown on the mirror pod at %s, was retried at %s: more than %s after it (the reaction bound %s included)", what, j.Offset(seen.ev.Time), j.Offset(retry.ev.Time), c.MaxBackoff, c.Reaction), in.ev, seen.ev, retry.ev)
	default:
		v.Judged++
	}
}

// nextAsk is the operator's first ask of the node's installer after
// position pos, nil if none.
func (n *node) nextAsk(pos int) *ask {
	for k := range n.asks {
		if n.asks[k].pos > pos {
			return &n.asks[k]
		}
	}
	return nil
}

// nextFallback is the first fallback after the i-th install, nil if none.
func (n *node) nextFallback(i int) *install {
	for _, in := range n.installs[i+1:] {
		if in.note.fallback {
			return in
		}
	}
	return nil
}

// episode is a fallback as the operator sees it: from the mirror pod
// showing it until it is over (clear nil: never, in this run).
type episode struct {
	node          string
	failed        int
	message       string
	seen, clear   *podWrite
	fallbackEvent timeline.Event
	// term is what the failed revision's operand wrote of its termination
	// message, and whether its mirror pod showed it.
	term termination
	// shown are the spans in which a mirror pod of the failed revision
	// showed a termination message, before the fallback's.
	shown []span
}

func (e episode) outstanding(t time.Time) bool {
	return !e.seen.ev.Time.After(t) && (e.clear == nil || e.clear.ev.Time.After(t))
}

// episodes are the fallbacks the operator could see. One is over once a
// later revision is ready (003 §Retries: Degraded while retries are
// attempted; after a no-retry fallback, until a new revision is ready), or
// for library-go once the mirror pod no longer carries the annotations.
func (c Config) episodes(f facts, j *judge.Judging) []episode {
	var out []episode
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			seen := n.seen(i, j)
			if seen == nil {
				continue
			}
			e := episode{node: n.name, failed: n.failedRevision(i), message: seen.pod.ann[annotationFallbackMessage], seen: seen, fallbackEvent: in.ev, term: in.before.term}
			from := -1
			if i > 0 {
				from = n.installs[i-1].pos
			}
			e.shown = n.termShown(e.failed, from, seen)
			over := func(p pod) bool { return p.ready && p.revision >= e.failed && !p.fallenBack() }
			if c.libraryGo() {
				over = func(p pod) bool { return !p.fallenBack() }
			}
			e.clear = n.firstPod(seen.pos, n.events, over)
			out = append(out, e)
		}
	}
	return out
}

// span is a stretch of time, from to to.
type span struct{ from, to time.Time }

// termShown are the spans, between positions from (-1: the timeline's
// start) and the mirror pod write seen, in which a mirror pod of revision
// rev showed a termination message: from the write that shows it to the
// next mirror pod write. One shown before the timeline showed a node is
// the instant it was first shown: no process was seen down before.
func (n *node) termShown(rev, from int, seen *podWrite) []span {
	var out []span
	if t, ok := n.earlyShown[rev]; ok && from < 0 {
		out = append(out, span{from: t, to: t})
	}
	for k := range n.pods {
		w := n.pods[k]
		if w.pos <= from || w.pos >= seen.pos || w.pod.terminated == "" || w.pod.revision != rev || !w.pod.exists {
			continue
		}
		until := seen.ev.Time
		for _, later := range n.pods[k+1:] {
			if later.pos > w.pos {
				until = later.ev.Time
				break
			}
		}
		out = append(out, span{from: w.ev.Time, to: until})
	}
	return out
}

// couldKnow tells whether actor ran at some instant of one of the spans.
func couldKnow(p judge.Processes, actor string, spans []span) bool {
	for _, s := range spans {
		if !p.DownThroughout(actor, s.from, s.to) {
			return true
		}
	}
	return false
}

// STATICPOD-008: the operator reports the fallback condition True, with
// the fallback message, within the reaction bound of the mirror pod
// showing a fallback, and sets it to nothing else until it is over (003
// §Retries: "While retries are attempted, the operator will report
// Degraded=true"; §Test Plan: "does not retry, but stays degraded";
// §Proposal step 1: the message annotation "will be published to the user
// through the operator degraded condition"). The condition's reason and
// the rest of its message are the operator's.
func (c Config) degraded(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	if f.recorded {
		return c.shownDegraded(c.shownOf(j), j)
	}
	eps := c.episodes(f, j)
	var v finding
	var reactions []time.Duration
	for _, e := range eps {
		what := fmt.Sprintf("%s fell back from revision %d at %s", e.node, e.failed, j.Offset(e.fallbackEvent.Time))
		set := c.judgeSet(f, e, what, j, &v)
		kept := c.judgeKept(f, e, what, j, &v)
		if set || kept {
			v.Judged++
		}
		if w := f.reported(e); w != nil {
			reactions = append(reactions, w.ev.Time.Sub(e.seen.ev.Time))
		}
	}
	out := v.verdict("no fallback reached the mirror pod in this run")
	if len(reactions) > 0 {
		out.Measures = []reports.Measure{measure("fallback shown to "+c.condition()+"=True", reactions, c.late())}
	}
	return out
}

// reported is the first write from the mirror pod showing e on that sets
// the condition True with the fallback message, nil if none while e is
// outstanding.
func (f facts) reported(e episode) *coWrite {
	if w := f.conditionAt(e.seen.ev.Time); w.is("True") && strings.Contains(w.cond.Message, e.message) {
		return w
	}
	for k := range f.condition {
		w := &f.condition[k]
		if w.ev.Time.After(e.seen.ev.Time) && e.outstanding(w.ev.Time) && w.is("True") && strings.Contains(w.cond.Message, e.message) {
			return w
		}
	}
	return nil
}

// STATICPOD-015 (Style): once a fallback is over (a later revision is
// ready; library-go: the mirror pod drops the annotations) and no other is
// outstanding, the condition is False within the reaction bound. 003
// §Retries says Degraded is True "while retries are attempted"; it never
// says when it clears, so a Degraded that outlives the fallback is a
// warning, not a failure.
func (c Config) degradedCleared(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	if f.recorded {
		return c.shownCleared(c.shownOf(j), j)
	}
	eps := c.episodes(f, j)
	var v finding
	for k, e := range eps {
		what := fmt.Sprintf("%s fell back from revision %d at %s", e.node, e.failed, j.Offset(e.fallbackEvent.Time))
		if c.judgeCleared(f, eps, k, what, j, &v) {
			v.Judged++
		}
	}
	return v.verdict("no fallback was over in this run")
}

// judgeSet: when the mirror pod shows the fallback, the condition is True
// and carries the fallback message. It tells whether it judged.
func (c Config) judgeSet(f facts, e episode, what string, j *judge.Judging, v *finding) bool {
	set := c.owedSet(f, e, j)
	switch {
	case e.clear != nil && !e.clear.ev.Time.After(set):
		return false // over before the condition was due: nothing owed
	case set.After(j.End):
		v.Skip(what + ": the run ended before the condition was due")
		return false
	case f.procs.DownDuring(operatorActor, e.seen.ev.Time, e.seen.ev.Time.Add(c.late())):
		v.Skip(what + ": the operator was down when the mirror pod showed it")
		return false
	}
	w := f.conditionAt(set)
	switch {
	case !w.is("True"):
		v.Fail(fmt.Sprintf("ClusterOperator/%s was not %s=True at %s, the reaction bound %s after the mirror pod showed that %s", clusterOperator, c.condition(), j.Offset(set), c.Reaction, what), e.evidence(e.seen, w)...)
	case !strings.Contains(w.cond.Message, e.message):
		v.Fail(fmt.Sprintf("ClusterOperator/%s %s message %q at %s does not carry the fallback message %q (%s)", clusterOperator, c.condition(), w.cond.Message, j.Offset(set), e.message, what), e.evidence(e.seen, w)...)
	}
	return true
}

// owedSet is when the condition is owed for e: the reaction bound after
// the mirror pod showed it, or, if the operator's calls failed in between
// (an API fault, a perturbation's window), the bound after they were
// answered again.
func (c Config) owedSet(f facts, e episode, j *judge.Judging) time.Time {
	return faultOwed(f.procs, e.seen.ev.Time, c.late(), j)
}

// faultOwed is when the operator owes its reaction to a change at from:
// the bound tol after it, or after its calls were answered again if they
// failed in between (judge.Processes.Owed over its API faults only: an
// outage is excused by each rule as before); past the run's end if they
// never were.
func faultOwed(p judge.Processes, from time.Time, tol time.Duration, j *judge.Judging) time.Time {
	var faults judge.Processes
	if l := p[operatorActor]; l != nil {
		faults = judge.Processes{operatorActor: &judge.Life{Faults: l.Faults}}
	}
	owed, ok := faults.Owed(operatorActor, from, tol)
	if !ok {
		return j.End.Add(time.Nanosecond)
	}
	return owed
}

// judgeKept: nothing sets the condition otherwise while the fallback is
// not over. It tells whether it found such a write.
func (c Config) judgeKept(f facts, e episode, what string, j *judge.Judging, v *finding) bool {
	set := c.owedSet(f, e, j)
	for k := range f.condition {
		if w := &f.condition[k]; w.ev.Time.After(set) && e.outstanding(w.ev.Time) && !w.is("True") {
			v.Fail(fmt.Sprintf("ClusterOperator/%s %s set to %s at %s, but the fallback (%s) was not over", clusterOperator, c.condition(), w.status(), j.Offset(w.ev.Time), what), e.evidence(e.seen, w)...)
			return true
		}
	}
	return false
}

// judgeCleared: once the fallback is over, and no other is outstanding,
// the condition is False. It tells whether it judged.
func (c Config) judgeCleared(f facts, eps []episode, k int, what string, j *judge.Judging, v *finding) bool {
	e := eps[k]
	if e.clear == nil {
		return false
	}
	// Owed past the bound when the operator's calls failed in between.
	at := faultOwed(f.procs, e.clear.ev.Time, c.late(), j)
	switch {
	case anotherOutstanding(eps, k, at):
		return false // the condition stays True for that one
	case at.After(j.End):
		v.Skip(what + ": the run ended before the condition was due to clear")
		return false
	case f.procs.DownDuring(operatorActor, e.clear.ev.Time, e.clear.ev.Time.Add(c.late())):
		v.Skip(what + ": the operator was down when the fallback was over")
		return false
	}
	if w := f.conditionAt(at); !w.is("False") {
		v.Fail(fmt.Sprintf("ClusterOperator/%s %s was %s at %s, but the fallback (%s) was over at %s", clusterOperator, c.condition(), w.status(), j.Offset(at), what, j.Offset(e.clear.ev.Time)),
			e.evidence(e.clear, w)...)
	}
	return true
}

// anotherOutstanding tells whether a fallback other than eps[k] is not
// over at t.
func anotherOutstanding(eps []episode, k int, t time.Time) bool {
	for i, e := range eps {
		if i != k && e.outstanding(t) {
			return true
		}
	}
	return false
}

// conditionAt is the last write of the condition at or before t, nil if none.
func (f facts) conditionAt(t time.Time) *coWrite {
	var out *coWrite
	for k := range f.condition {
		if f.condition[k].ev.Time.After(t) {
			break
		}
		out = &f.condition[k]
	}
	return out
}

// is tells whether the condition, as written by w, has the status s.
func (w *coWrite) is(s string) bool { return w != nil && w.cond != nil && w.cond.Status == s }

func (w *coWrite) status() string {
	if w == nil || w.cond == nil {
		return "absent"
	}
	return w.cond.Status
}

// evidence is the fallback, the mirror pod write at stake and the
// condition's write, if any.
func (e episode) evidence(p *podWrite, w *coWrite) []timeline.Event {
	out := []timeline.Event{e.fallbackEvent, p.ev}
	if w != nil {
		out = append(out, w.ev)
	}
	return out
}

// STATICPOD-011: while the operator reports the fallback condition True
// for a fallback from a revision whose operand wrote a termination
// message (the message of that revision's last termination.log line before
// the fallback), the condition's message carries it (003 §User Stories
// 3). A revision that never started, or whose process never exited by
// itself, wrote none and is not judged; nor is one whose mirror pod never
// showed it, or showed it only while the operator was down, as the
// operator could not know it. An operator that saw it owes it after a
// restart too: it keeps what it must remember where a restart finds it,
// as library-go keeps its node statuses in its operator resource.
func (c Config) terminationShown(j *judge.Judging) judge.Verdict {
	if c.libraryGo() {
		return judge.Verdict{Status: reports.Skip, Message: "not judged: library-go's " + libraryGoCondition + " message carries no termination message (docs/upstream.md)"}
	}
	f := c.factsOf(j)
	var v finding
	eps := c.episodes(f, j)
	for k, e := range eps {
		what := fmt.Sprintf("%s fell back from revision %d at %s", e.node, e.failed, j.Offset(e.fallbackEvent.Time))
		set := c.owedSet(f, e, j)
		// A later fallback on the node takes its place in the condition.
		until := j.End.Add(time.Nanosecond)
		for _, later := range eps[k+1:] {
			if later.node == e.node {
				until = later.seen.ev.Time
				break
			}
		}
		switch {
		case e.term.message == "":
			v.Skip(what + ": its operand wrote no termination message (it never started, or never exited by itself)")
			continue
		case !e.term.shown:
			v.Skip(what + ": the mirror pod never showed its termination message, so the operator could not know it")
			continue
		case set.After(j.End):
			v.Skip(what + ": the run ended before the condition was due")
			continue
		case !until.After(set):
			v.Skip(what + ": a later fallback on the node was shown before the condition was due")
			continue
		case !couldKnow(f.procs, operatorActor, e.shown):
			// Its memory is its own to keep (a restarted operator owes
			// what it saw before), but one that was down all the while
			// could not see it: the mirror pod of the fallback is a new
			// pod without it.
			v.Skip(what + ": the operator was down all the while the mirror pod showed its termination message, so it could not know it")
			continue
		}
		// An operator down when the fallback was shown wrote the standing
		// condition before it: only what it writes once back is judged.
		standing := !f.procs.DownDuring(operatorActor, e.seen.ev.Time, e.seen.ev.Time.Add(c.late()))
		judged := false
		for _, w := range c.trueWhile(f, e, set, until, standing) {
			judged = true
			if !strings.Contains(w.cond.Message, e.term.message) {
				v.Fail(fmt.Sprintf("ClusterOperator/%s %s message %q at %s does not carry the termination message %q of revision %d (%s)",
					clusterOperator, c.condition(), w.cond.Message, j.Offset(w.ev.Time), e.term.message, e.failed, what),
					*e.term.last, e.fallbackEvent, w.ev)
				break
			}
		}
		if judged {
			v.Judged++
		} else {
			if !standing {
				v.Skip(what + ": the operator was down when the mirror pod showed the fallback, and wrote no True condition for it once back")
			} else {
				v.Skip(what + ": the condition was never True while the fallback was outstanding (STATICPOD-008's question)")
			}
		}
	}
	return v.verdict("no fallback reached the mirror pod in this run")
}

// trueWhile are the writes of the condition, True, in force while e is
// outstanding from set on and before until: the one standing at set (if
// standing) and those after it.
func (c Config) trueWhile(f facts, e episode, set, until time.Time, standing bool) []*coWrite {
	var out []*coWrite
	if w := f.conditionAt(set); standing && w.is("True") {
		out = append(out, w)
	}
	for k := range f.condition {
		if w := &f.condition[k]; w.ev.Time.After(set) && w.ev.Time.Before(until) && e.outstanding(w.ev.Time) && w.is("True") {
			out = append(out, w)
		}
	}
	return out
}
