package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// STATICPOD-006: a revision fallen back from for a no-retry reason is
// never installed again. The reason judged is the annotation's, the one
// the operator reads (whether it is right is STATICPOD-002's question).
func (c Config) noRetry(j *conformance.Judging) conformance.Verdict {
	if len(c.NoRetry) == 0 {
		return conformance.Verdict{Status: reports.Skip, Message: fmt.Sprintf("not judged: the %s profile retries after every reason (UPSTREAM.md)", c.Profile)}
	}
	var v finding
	for _, n := range c.factsOf(j).nodes {
		for i, in := range n.installs {
			if !in.note.fallback || !slices.Contains(c.NoRetry, in.note.reason) {
				continue
			}
			failed := n.failedRevision(i)
			v.judged++
			for _, later := range n.installs[i+1:] {
				if !later.note.fallback && later.note.revision == failed {
					v.fail(fmt.Sprintf("%s: revision %d, fallen back from at %s with reason %s, was installed again at %s: no retry after %s",
						n.name, failed, off(in.at()), in.note.reason, off(later.at()), strings.Join(c.NoRetry, " or ")), in.ev, later.ev)
					break
				}
			}
		}
	}
	return v.verdict("no fallback with reason " + strings.Join(c.NoRetry, " or ") + " in this run")
}

// STATICPOD-007: a retriable failed revision that is still the target (no
// other revision was installed meanwhile) is installed again exactly at
// its back-off: FirstRetry after its first fallback, doubling per retry up
// to MaxBackoff. The back-off runs from the fallback's write for the
// lower bound and from the mirror pod showing it, the first moment the
// operator can know, for the upper bound.
func (c Config) backoffKept(j *conformance.Judging) conformance.Verdict {
	f := c.factsOf(j)
	var v finding
	for _, n := range f.nodes {
		fallbacks := map[int]int{} // per failed revision, so far
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			failed := n.failedRevision(i)
			fallbacks[failed]++
			if slices.Contains(c.NoRetry, in.note.reason) {
				continue // STATICPOD-006
			}
			k := fallbacks[failed]
			delay := c.backoff(k)
			what := fmt.Sprintf("%s: revision %d, fallen back from at %s with reason %s, retry %d (back-off %s)", n.name, failed, off(in.at()), in.note.reason, k, delay)
			retry := n.nextTrial(i)
			seen := n.seen(i, j)
			if retry != nil && retry.note.revision == failed {
				late := seen != nil && retry.at().After(seen.ev.Time.Add(delay+c.Tolerance))
				switch {
				case retry.at().Before(in.at().Add(delay - c.Tolerance)):
					v.judged++
					v.fail(fmt.Sprintf("%s, was retried at %s, after %s", what, off(retry.at()), retry.at().Sub(in.at())), in.ev, retry.ev)
				case late && f.procs.downDuring(operatorActor, seen.ev.Time, retry.at()):
					v.skip(what + ": the operator was down before its late retry")
				case late:
					v.judged++
					v.fail(fmt.Sprintf("%s, shown on the mirror pod at %s, was retried at %s, due at %s", what, off(seen.ev.Time), off(retry.at()), off(seen.ev.Time.Add(delay))), in.ev, seen.ev, retry.ev)
				default:
					v.judged++
				}
				continue
			}
			if seen == nil {
				v.skip(what + ": the mirror pod never showed the fallback, so the operator could not know")
				continue
			}
			due := seen.ev.Time.Add(delay)
			stop, stopping := j.End, "the end of the run at "+off(j.End)
			if retry != nil {
				stop, stopping = retry.at(), fmt.Sprintf("revision %d's manifest at %s", retry.note.revision, off(retry.at()))
			}
			switch {
			case !stop.After(due.Add(c.Tolerance)):
				v.skip(fmt.Sprintf("%s: the retry was not due before %s", what, stopping))
			case f.procs.downDuring(operatorActor, seen.ev.Time, due.Add(c.Tolerance)):
				v.skip(what + ": the operator was down before the retry was due")
			default:
				v.judged++
				v.fail(fmt.Sprintf("%s, shown on the mirror pod at %s, was not retried by %s, nor before %s", what, off(seen.ev.Time), off(due), stopping), in.ev, seen.ev)
			}
		}
	}
	return v.verdict("no retriable fallback in this run")
}

// nextTrial is the first install after the i-th that is not a fallback.
func (n *node) nextTrial(i int) *install {
	for _, in := range n.installs[i+1:] {
		if !in.note.fallback {
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
}

func (e episode) outstanding(t time.Time) bool {
	return !e.seen.ev.Time.After(t) && (e.clear == nil || e.clear.ev.Time.After(t))
}

// episodes are the fallbacks the operator could see. One is over once a
// later revision is ready (003 §Retries: Degraded while retries are
// attempted; after a no-retry fallback, until a new revision is ready), or
// for library-go once the mirror pod no longer carries the annotations.
func (c Config) episodes(f facts, j *conformance.Judging) []episode {
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
			over := func(p pod) bool { return p.ready && p.revision >= e.failed && !p.fallenBack() }
			if c.libraryGo() {
				over = func(p pod) bool { return !p.fallenBack() }
			}
			e.clear = n.firstPod(seen.pos, len(j.Events), over)
			out = append(out, e)
		}
	}
	return out
}

// STATICPOD-008: the operator reports the fallback condition True, with
// the fallback message, from the moment the mirror pod shows a fallback
// until it is over, and False once none is.
func (c Config) degraded(j *conformance.Judging) conformance.Verdict {
	f := c.factsOf(j)
	eps := c.episodes(f, j)
	var v finding
	for k, e := range eps {
		what := fmt.Sprintf("%s fell back from revision %d at %s", e.node, e.failed, off(e.fallbackEvent.Time))
		set := c.judgeSet(f, e, what, j, &v)
		kept := c.judgeKept(f, e, what, &v)
		cleared := c.judgeCleared(f, eps, k, what, j, &v)
		if set || kept || cleared {
			v.judged++
		}
	}
	return v.verdict("no fallback reached the mirror pod in this run")
}

// judgeSet: when the mirror pod shows the fallback, the condition is True
// and carries the fallback message. It tells whether it judged.
func (c Config) judgeSet(f facts, e episode, what string, j *conformance.Judging, v *finding) bool {
	set := e.seen.ev.Time.Add(c.Tolerance)
	switch {
	case e.clear != nil && !e.clear.ev.Time.After(set):
		return false // over before the condition was due: nothing owed
	case set.After(j.End):
		v.skip(what + ": the run ended before the condition was due")
		return false
	case f.procs.downDuring(operatorActor, e.seen.ev.Time, set):
		v.skip(what + ": the operator was down when the mirror pod showed it")
		return false
	}
	w := f.conditionAt(set)
	switch {
	case !w.is("True"):
		v.fail(fmt.Sprintf("ClusterOperator/%s was not %s=True at %s, when the mirror pod showed that %s", clusterOperator, c.condition(), off(set), what), e.evidence(e.seen, w)...)
	case !strings.Contains(w.cond.Message, e.message):
		v.fail(fmt.Sprintf("ClusterOperator/%s %s message %q at %s does not carry the fallback message %q (%s)", clusterOperator, c.condition(), w.cond.Message, off(set), e.message, what), e.evidence(e.seen, w)...)
	}
	return true
}

// judgeKept: nothing sets the condition otherwise while the fallback is
// not over. It tells whether it found such a write.
func (c Config) judgeKept(f facts, e episode, what string, v *finding) bool {
	set := e.seen.ev.Time.Add(c.Tolerance)
	for k := range f.condition {
		if w := &f.condition[k]; w.ev.Time.After(set) && e.outstanding(w.ev.Time) && !w.is("True") {
			v.fail(fmt.Sprintf("ClusterOperator/%s %s set to %s at %s, but the fallback (%s) was not over", clusterOperator, c.condition(), w.status(), off(w.ev.Time), what), e.evidence(e.seen, w)...)
			return true
		}
	}
	return false
}

// judgeCleared: once the fallback is over, and no other is outstanding,
// the condition is False. It tells whether it judged.
func (c Config) judgeCleared(f facts, eps []episode, k int, what string, j *conformance.Judging, v *finding) bool {
	e := eps[k]
	if e.clear == nil {
		return false
	}
	at := e.clear.ev.Time.Add(c.Tolerance)
	switch {
	case anotherOutstanding(eps, k, at):
		return false // the condition stays True for that one
	case at.After(j.End):
		v.skip(what + ": the run ended before the condition was due to clear")
		return false
	case f.procs.downDuring(operatorActor, e.clear.ev.Time, at):
		v.skip(what + ": the operator was down when the fallback was over")
		return false
	}
	if w := f.conditionAt(at); !w.is("False") {
		v.fail(fmt.Sprintf("ClusterOperator/%s %s was %s at %s, but the fallback (%s) was over at %s", clusterOperator, c.condition(), w.status(), off(at), what, off(e.clear.ev.Time)),
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
// showed it, as the operator could not know it.
func (c Config) terminationShown(j *conformance.Judging) conformance.Verdict {
	if c.libraryGo() {
		return conformance.Verdict{Status: reports.Skip, Message: "not judged: library-go's " + libraryGoCondition + " message carries no termination message (UPSTREAM.md)"}
	}
	f := c.factsOf(j)
	var v finding
	eps := c.episodes(f, j)
	for k, e := range eps {
		what := fmt.Sprintf("%s fell back from revision %d at %s", e.node, e.failed, off(e.fallbackEvent.Time))
		set := e.seen.ev.Time.Add(c.Tolerance)
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
			v.skip(what + ": its operand wrote no termination message (it never started, or never exited by itself)")
			continue
		case !e.term.shown:
			v.skip(what + ": the mirror pod never showed its termination message, so the operator could not know it")
			continue
		case set.After(j.End):
			v.skip(what + ": the run ended before the condition was due")
			continue
		case !until.After(set):
			v.skip(what + ": a later fallback on the node was shown before the condition was due")
			continue
		case f.procs.downDuring(operatorActor, e.term.first.Time, set):
			v.skip(what + ": the operator was down between the termination message and the fallback, so it could not know it")
			continue
		}
		judged := false
		for _, w := range c.trueWhile(f, e, set, until) {
			judged = true
			if !strings.Contains(w.cond.Message, e.term.message) {
				v.fail(fmt.Sprintf("ClusterOperator/%s %s message %q at %s does not carry the termination message %q of revision %d (%s)",
					clusterOperator, c.condition(), w.cond.Message, off(w.ev.Time), e.term.message, e.failed, what),
					*e.term.last, e.fallbackEvent, w.ev)
				break
			}
		}
		if judged {
			v.judged++
		} else {
			v.skip(what + ": the condition was never True while the fallback was outstanding (STATICPOD-008's question)")
		}
	}
	return v.verdict("no fallback reached the mirror pod in this run")
}

// trueWhile are the writes of the condition, True, in force while e is
// outstanding from set on and before until: the one standing at set and
// those after it.
func (c Config) trueWhile(f facts, e episode, set, until time.Time) []*coWrite {
	var out []*coWrite
	if w := f.conditionAt(set); w.is("True") {
		out = append(out, w)
	}
	for k := range f.condition {
		if w := &f.condition[k]; w.ev.Time.After(set) && w.ev.Time.Before(until) && e.outstanding(w.ev.Time) && w.is("True") {
			out = append(out, w)
		}
	}
	return out
}
