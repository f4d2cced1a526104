package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// STATICPOD-001: a monitored revision that is not ready is fallen back from
// Timeout after its manifest was written: not earlier (the operand gets the
// whole timeout), not later, and not at all once ready.
func (c Config) fallbackInTime(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	v := finding{reaction: "fallback after the timeout (or the unlock)", budget: c.late()}
	for _, n := range f.nodes {
		monitor := monitorActor(n.name)
		for i, in := range n.installs {
			if in.note.fallback || !in.monitored {
				continue
			}
			what := fmt.Sprintf("%s revision %d on %s (manifest written at %s)", operand, in.note.revision, n.name, j.Offset(in.at()))
			deadline := in.at().Add(c.Timeout)
			// 003 §Coordination: the monitor waits while the installer holds the lock.
			due, released := deadline, true
			if s, held := n.heldAt(deadline, monitor); held {
				due, released = s.unlock.Time, s.unlockPos >= 0
			}
			_, stop := n.window(i, j)
			ready, seen := n.readyDuring(i, j, f.procs, monitor)
			if next := n.next(i); next != nil && next.note.fallback {
				switch {
				case seen != nil && faulted(f.procs, monitor, seen.ev.Time, next.at()):
					v.Skip(fmt.Sprintf("%s: its operand was ready at %s, but %s's calls were perturbed or failing before its fallback at %s: it may not have seen it", what, j.Offset(seen.ev.Time), monitor, j.Offset(next.at())))
				case seen != nil:
					v.Judged++
					v.Fail(fmt.Sprintf("%s was fallen back from at %s although its operand was ready at %s", what, j.Offset(next.at()), j.Offset(seen.ev.Time)), in.ev, seen.ev, next.ev)
				case next.at().Before(deadline.Add(-c.Tolerance)):
					v.Judged++
					v.Fail(fmt.Sprintf("%s was fallen back from at %s, %s after its manifest was written: before the %s timeout", what, j.Offset(next.at()), next.at().Sub(in.at()), c.Timeout), in.ev, next.ev)
				case !released || !next.at().After(due.Add(c.late())):
					v.Judged++ // in time (under a lock never released: STATICPOD-010's case)
					if released {
						v.measured(max(next.at().Sub(due), 0))
					}
				case f.procs.DownDuring(monitor, in.at(), due):
					// Only an outage by the deadline excuses lateness: a monitor
					// that lived to its deadline owed the fallback then (one
					// stopped with its own late fallback is not excused).
					v.Skip(fmt.Sprintf("%s: %s was down before its fallback was due at %s", what, monitor, j.Offset(due)))
				default:
					v.Judged++
					v.measured(next.at().Sub(due))
					v.Fail(fmt.Sprintf("%s was fallen back from at %s, due at %s", what, j.Offset(next.at()), j.Offset(due)), in.ev, next.ev)
				}
				continue
			}
			switch {
			case ready != nil && !ready.ev.Time.After(deadline.Add(c.late())):
				v.Judged++ // ready in time (seen by the monitor or not: no fallback was owed)
			case !released || !stop.After(due.Add(c.late())):
				v.Skip(fmt.Sprintf("%s: its fallback was not due before %s", what, n.stopping(i, j)))
			case !n.canFallBack(in.note.revision, due, due.Add(c.late())):
				// 003 §Proposal step 1: "or don't do anything if there is
				// no previous revision": judged on what the node held when
				// the fallback was due, not when the revision was written
				// (a pruner may have removed the previous one since).
				v.Skip(fmt.Sprintf("%s: nothing to fall back to when its fallback was due at %s: no last-known-good link to another revision and no revision below %d left on the node (003 §Proposal step 1: do nothing; STATICPOD-005)",
					what, j.Offset(due), in.note.revision))
			case f.procs.DownDuring(monitor, in.at(), due.Add(c.late())):
				v.Skip(fmt.Sprintf("%s: %s was down before the fallback was due at %s", what, monitor, j.Offset(due)))
			default:
				v.Judged++
				v.Fail(fmt.Sprintf("%s was neither ready nor fallen back from by %s, and not by %s either", what, j.Offset(due), n.stopping(i, j)), in.ev)
			}
		}
	}
	return v.verdict("no monitored revision ran for its timeout")
}

// faulted tells whether actor was under an API fault (an apiErrors window,
// a perturbation's window) at any instant of [from, to]: what it read then
// may not be the objects as they were.
func faulted(p judge.Processes, actor string, from, to time.Time) bool {
	l := p[actor]
	if l == nil {
		return false
	}
	for _, s := range l.Faults {
		if !s.From.After(to) && (s.To.IsZero() || s.To.After(from)) {
			return true
		}
	}
	return false
}

// readyDuring is the first sign that the i-th install's operand was ready
// while its manifest was the latest (the mirror pod already ready at its
// revision when it was written, a revision installed again while running,
// which the kubelet may not restart; or a later mirror pod write), and the
// first such sign the startup-monitor could see: one whose readiness
// lasted into an instant at which the monitor ran.
func (n *node) readyDuring(i int, j *judge.Judging, procs judge.Processes, monitor string) (ready, seen *podWrite) {
	in := n.installs[i]
	end, _ := n.window(i, j)
	signs := []podWrite{}
	if in.before.pod.readyAt(in.note.revision) {
		signs = append(signs, podWrite{ev: in.ev, pos: in.pos, pod: in.before.pod})
	}
	for k := range n.pods {
		if w := n.pods[k]; w.pos > in.pos && w.pos < end {
			signs = append(signs, w)
		}
	}
	for k, w := range signs {
		if !w.pod.readyAt(in.note.revision) {
			continue
		}
		if ready == nil {
			ready = &signs[k]
		}
		until := end // ready until the next mirror pod write, or the window's end
		if k+1 < len(signs) {
			until = signs[k+1].pos
		}
		if !procs.DownBetween(monitor, w.pos, until) {
			return ready, &signs[k]
		}
	}
	return ready, nil
}

// canFallBack tells whether a fallback from revision failed was possible
// throughout [from, to] (the instant it was due, and its tolerance): the
// node held something to fall back to after every event up to from and at
// every change until to (003 §Proposal step 1).
func (n *node) canFallBack(failed int, from, to time.Time) bool {
	k := sort.Search(len(n.held), func(k int) bool { return n.held[k].at.After(from) })
	at := holdings{}
	if k > 0 {
		at = n.held[k-1].holdings
	}
	if !at.canFallBack(failed) {
		return false
	}
	for ; k < len(n.held) && !n.held[k].at.After(to); k++ {
		if !n.held[k].canFallBack(failed) {
			return false
		}
	}
	return true
}

// canFallBack tells whether the holdings leave something to fall back to
// from revision failed: a last-known-good other than it, or an earlier
// revision (003 §Proposal step 1).
func (h holdings) canFallBack(failed int) bool {
	want, _ := h.fallbackTarget(failed)
	return want != 0
}

// STATICPOD-002: the fallback reason is the first failing readiness check
// on the operand's ground truth, in the profile's order (003 §Readiness
// names the reasons: MUST).
func (c Config) rightReason(j *judge.Judging) judge.Verdict {
	return c.judgeReasons(j, false)
}

// STATICPOD-013 (Style): a fallback for a red /readyz names the
// unfinished post-start hooks in its message (003 §Readiness: "message
// should contain the unfinished post-start-hooks").
func (c Config) hooksNamed(j *judge.Judging) judge.Verdict {
	return c.judgeReasons(j, true)
}

// judgeReasons judges every fallback's reason, or (hooks) the message of
// every fallback whose reason is a /readyz one it may be judged for.
func (c Config) judgeReasons(j *judge.Judging, hooks bool) judge.Verdict {
	var v finding
	f := c.factsOf(j)
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			if i == 0 {
				v.Skip(fmt.Sprintf("the fallback on %s at %s replaced no manifest on the timeline", n.name, j.Offset(in.at())))
				continue
			}
			failed := n.installs[i-1]
			want := c.expect(in.before, failed.note.revision)
			what := fmt.Sprintf("%s fell back from revision %d at %s with reason %q", n.name, failed.note.revision, j.Offset(in.at()), in.note.reason)
			evidence := append(append(slices.Clip(want.evidence), failed.ev), in.ev)
			right := len(want.reasons) > 0 && slices.Contains(want.reasons, in.note.reason)
			switch {
			case hooks && (!right || !want.hooks):
				continue // no /readyz fallback, or a wrong reason: STATICPOD-002's
			case hooks:
				v.Judged++
				if miss := missingHooks(in.before.readyz, in.note.message); len(miss) > 0 {
					v.Fail(fmt.Sprintf("%s: its message %q does not name the unfinished post-start hooks %s", what, in.note.message, strings.Join(miss, ", ")), evidence...)
				}
			case !right && faulted(f.procs, monitorActor(n.name), failed.at(), in.at()):
				v.Skip(fmt.Sprintf("%s: %s's calls were perturbed or failing before it, so what it saw of the operand may not be the operand's state", what, monitorActor(n.name)))
			case len(want.reasons) == 0:
				v.Judged++
				v.Fail(fmt.Sprintf("%s, but %s", what, want.why), evidence...)
			case !right:
				v.Judged++
				v.Fail(fmt.Sprintf("%s, want %s: %s", what, strings.Join(want.reasons, " or "), want.why), evidence...)
			default:
				v.Judged++
			}
		}
	}
	if hooks {
		return v.verdict("no fallback for a red /readyz in this run")
	}
	return v.verdict("no fallback in this run")
}

// STATICPOD-003: the fallback manifest carries the three annotations, and
// the mirror pod of the revision fallen back to carries them as written.
func (c Config) annotated(j *judge.Judging) judge.Verdict {
	var v finding
	f := c.factsOf(j)
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			v.Judged++
			what := fmt.Sprintf("the fallback manifest written on %s at %s", n.name, j.Offset(in.at()))
			note, failed := in.note, n.failedRevision(i)
			if miss := missingAnnotations(note); len(miss) > 0 {
				v.Fail(fmt.Sprintf("%s lacks %s", what, strings.Join(miss, ", ")), in.ev)
				continue
			}
			switch {
			case revisionNumber(note.forRevision) != failed:
				v.Fail(fmt.Sprintf("%s has %s=%q, want %d, the revision it replaced", what, annotationFallbackFor, note.forRevision, failed), in.ev)
				continue
			case !slices.Contains(c.reasons(), note.reason):
				v.Fail(fmt.Sprintf("%s has %s=%q, none of the %s profile's reasons %v", what, annotationFallbackReason, note.reason, c.Profile, c.reasons()), in.ev)
				continue
			}
			// The kubelet copies them when it runs the manifest: the first
			// mirror pod write carrying them is judged, or, if none does,
			// the last one at the revision fallen back to.
			mirror := n.seen(i, j)
			if mirror == nil {
				end, _ := n.window(i, j)
				for k := range n.pods {
					if w := &n.pods[k]; w.pos > in.pos && w.pos < end && w.pod.exists && w.pod.revision == note.revision {
						mirror = w
					}
				}
			}
			if mirror == nil {
				v.Skip(fmt.Sprintf("no mirror pod of revision %d was written on %s after the fallback at %s", note.revision, n.name, j.Offset(in.at())))
				continue
			}
			for _, a := range []struct{ key, want string }{
				{annotationFallbackFor, note.forRevision}, {annotationFallbackReason, note.reason}, {annotationFallbackMessage, note.message},
			} {
				if got := mirror.pod.ann[a.key]; got != a.want {
					v.Fail(fmt.Sprintf("Pod/%s/%s%s written at %s after %s has %s=%q, want %q", mirrorNamespace, mirrorPrefix, n.name, j.Offset(mirror.ev.Time), what, a.key, got, a.want), in.ev, mirror.ev)
					break
				}
			}
		}
	}
	return v.verdict("no fallback in this run")
}

func missingAnnotations(m manifestNote) []string {
	var out []string
	for _, a := range []struct{ key, value string }{
		{annotationFallbackFor, m.forRevision}, {annotationFallbackReason, m.reason}, {annotationFallbackMessage, m.message},
	} {
		if a.value == "" {
			out = append(out, a.key)
		}
	}
	return out
}

// STATICPOD-004: last-known-good is linked only to a revision whose operand
// was ready since its latest manifest before the link.
func (c Config) linkedWhenReady(j *judge.Judging) judge.Verdict {
	var v finding
	for _, n := range c.factsOf(j).nodes {
		for _, fe := range n.files {
			if fe.ev.Verb != timeline.VerbSymlink || fe.path != lastKnownGood {
				continue
			}
			v.Judged++
			rev, ok := revisionOf(fe.target)
			if !ok || fe.target != revisionDir(rev) {
				v.Fail(fmt.Sprintf("%s linked last-known-good on %s at %s to %q, not a revision directory", fe.ev.Actor, n.name, j.Offset(fe.ev.Time), fe.target), fe.ev)
				continue
			}
			from, since := -1, "the start of the run"
			for _, in := range n.installs {
				if in.pos < fe.pos && in.note.revision == rev {
					from, since = in.pos, "its manifest was written at "+j.Offset(in.at())
				}
			}
			if !n.readyAt(rev, from, fe.pos) {
				v.Fail(fmt.Sprintf("%s linked last-known-good on %s at %s to revision %d, whose operand had not been ready (mirror pod Ready=True at revision %d) since %s",
					fe.ev.Actor, n.name, j.Offset(fe.ev.Time), rev, rev, since), fe.ev)
			}
		}
	}
	return v.verdict("last-known-good was never linked in this run")
}

// STATICPOD-005: a fallback goes to last-known-good, else the previous
// revision, else nowhere; two or more revisions back is a warning.
func (c Config) rightTarget(j *judge.Judging) judge.Verdict {
	var v finding
	f := c.factsOf(j)
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback {
				continue
			}
			failed := n.failedRevision(i)
			if failed == 0 {
				v.Skip(fmt.Sprintf("the fallback on %s at %s names no revision it replaced", n.name, j.Offset(in.at())))
				continue
			}
			v.Judged++
			got := in.note.revision
			what := fmt.Sprintf("%s fell back from revision %d to %d at %s", n.name, failed, got, j.Offset(in.at()))
			want, why := in.fallbackTarget(failed)
			switch {
			case want == 0:
				v.Fail(fmt.Sprintf("%s, but there was nothing to fall back to: no last-known-good link and no revision below %d (bootstrap: do nothing)", what, failed), in.ev)
			case got != want:
				v.Fail(fmt.Sprintf("%s, want revision %d, %s", what, want, why), in.ev)
			case failed-got >= 2:
				v.Note(fmt.Sprintf("warning: %s, %d revisions back: only one back is provably safe (003 §Design Details)", what, failed-got))
			}
		}
	}
	return v.verdict("no fallback in this run")
}

// fallbackTarget is where a fallback replacing revision failed must go
// (003 §Proposal step 1), and why; 0 for nowhere. A dangling link counts
// as none: there is nothing to copy from it.
func (h holdings) fallbackTarget(failed int) (int, string) {
	if h.lkg != 0 && h.lkg != failed {
		return h.lkg, "the last-known-good one"
	}
	prev := 0
	for _, r := range h.present {
		if r < failed {
			prev = r
		}
	}
	return prev, "the previous one (no last-known-good link)"
}

// STATICPOD-012: once the operand of a revision is ready while its
// startup-monitor runs, the monitor links last-known-good to the revision
// and then removes its own manifest, at the instant it can first see the
// readiness (plus the reaction bound).
func (c Config) doneWhenReady(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	v := finding{reaction: "step 2 after the operand was ready", budget: c.late()}
	for _, n := range f.nodes {
		for i, in := range n.installs {
			if !in.note.fallback && in.note.revision > 0 {
				c.stepTwo(n, i, j, f.procs, &v)
			}
		}
	}
	return v.verdict("no revision's operand was ready while its startup-monitor ran")
}

// owed is step 2 owed by a startup-monitor since an event.
type owed struct {
	at       timeline.Event // the event from which it was owed
	ready    timeline.Event // the mirror pod write that showed the operand ready
	atPos    int
	readyPos int
}

// stepTwo judges the startup-monitor of the i-th install (003 §Proposal
// step 2) while that install is the latest manifest. Whenever its operand
// is ready (a mirror pod write since the manifest's showed Ready=True at
// its revision), its manifest of that revision is on the node, it runs
// and no other actor holds the installer lock, it owes the link of
// last-known-good to the revision and then the removal of its own
// manifest, at that instant: the look the mirror pod's write, the lock's
// release or its own start wakes. Nothing is owed while it is down (it
// owes it once back, if the operand is still ready), while the lock is
// another's (it waits, 003 §Coordination), or once a later manifest is
// written.
func (c Config) stepTwo(n *node, i int, j *judge.Judging, procs judge.Processes, v *finding) {
	in := n.installs[i]
	rev, monitor := in.note.revision, monitorActor(n.name)
	end, endAt := n.window(i, j)
	what := fmt.Sprintf("%s revision %d on %s (manifest written at %s)", operand, rev, n.name, j.Offset(in.at()))
	own := in.monitor == rev // its startup-monitor's manifest is on the node
	var ready *podWrite      // the write that showed the operand ready, nil while it is not
	var linked *fileEvent    // the monitor's link of last-known-good to rev while ready, nil if none stands
	var due *owed
	opened, missed := false, ""
	pk := sort.Search(len(n.pods), func(k int) bool { return n.pods[k].pos > in.pos })
	fk := sort.Search(len(n.files), func(k int) bool { return n.files[k].pos > in.pos })
	ups := changes(procs, monitor, in.pos, end)
	// Only the node's own changes and the monitor's start and stop can
	// change what is owed; the events between them matter only by their
	// time, and times do not go back: an event past the deadline before
	// the next change means the deadline passed with nothing changed.
	last := in.pos
	for {
		q, e := n.nextChange(pk, fk, ups, end)
		if q < 0 {
			break
		}
		last = q
		if due != nil && e.Time.After(due.at.Time.Add(c.late())) {
			v.Judged++
			c.stepTwoLate(n, in, due, linked, q, end, what, j, v)
			return
		}
		if len(ups) > 0 && ups[0].pos == q {
			ups = ups[1:]
		}
		removed := false
		if pk < len(n.pods) && n.pods[pk].pos == q {
			w := &n.pods[pk]
			pk++
			switch {
			case !w.pod.readyAt(rev):
				ready = nil
			case ready == nil:
				ready = w
			}
		}
		if fk < len(n.files) && n.files[fk].pos == q {
			fe := &n.files[fk]
			fk++
			switch verb := fe.ev.Verb; {
			case verb == timeline.VerbWrite && fe.path == monitorManifest:
				own = parseManifest(fe.ev.Detail).revision == rev
			case (verb == timeline.VerbRemove || verb == timeline.VerbRename) && within(monitorManifest, fe.path):
				own, removed = false, verb == timeline.VerbRemove && fe.ev.Actor == monitor
			case verb == timeline.VerbRename && fe.target == monitorManifest:
				own = false // a manifest moved in: not one the rules can read
			case verb == timeline.VerbSymlink && fe.path == lastKnownGood:
				linked = nil
				if fe.ev.Actor == monitor && fe.target == revisionDir(rev) && ready != nil {
					linked = fe
				}
			case (verb == timeline.VerbRemove || verb == timeline.VerbRename) && within(lastKnownGood, fe.path):
				linked = nil
			}
		}
		lock, held := n.heldAfter(q, monitor)
		down := procs.DownAfter(monitor, q)
		can := own && ready != nil && !down && !held
		switch {
		case due != nil && removed:
			v.Judged++
			if linked == nil {
				v.Fail(c.stepTwoOwed(n, due, what, rev, j)+fmt.Sprintf(", but removed its manifest at %s without linking last-known-good to %d first%s",
					j.Offset(e.Time), rev, laterLink(n, q, end, monitor, rev, j)), stepTwoEvidence(in, due, &e, n.linkAfter(q, end, monitor, rev))...)
				return
			}
			v.measured(e.Time.Sub(due.at.Time))
			due, linked = nil, nil // done: a new monitor of the revision owes it again
		case due != nil && !can:
			v.Skip(fmt.Sprintf("%s: step 2 was owed from %s, but at %s %s", what, j.Offset(due.at.Time), j.Offset(e.Time), lapse(own, ready, down, lock, held)))
			due = nil
		case due == nil && can:
			due, opened = &owed{at: e, ready: ready.ev, atPos: q, readyPos: ready.pos}, true
		case due == nil && own && ready != nil && missed == "":
			missed = fmt.Sprintf("%s: ready at %s while %s", what, j.Offset(ready.ev.Time), lapse(own, ready, down, lock, held))
		}
	}
	if due != nil && end-1 > last && n.timeBefore(i).After(due.at.Time.Add(c.late())) {
		v.Judged++
		c.stepTwoLate(n, in, due, linked, end, end, what, j, v)
		return
	}
	switch {
	case due != nil && !endAt.After(due.at.Time.Add(c.late())):
		v.Skip(fmt.Sprintf("%s: step 2 was owed from %s, not due before %s", what, j.Offset(due.at.Time), n.stopping(i, j)))
	case due != nil:
		v.Judged++
		done := " did neither"
		if linked != nil {
			done = fmt.Sprintf(", having linked it at %s, did not remove its manifest", j.Offset(linked.ev.Time))
		}
		v.Fail(c.stepTwoOwed(n, due, what, rev, j)+fmt.Sprintf(", but%s by %s, nor by %s", done, j.Offset(due.at.Time.Add(c.late())), n.stopping(i, j)),
			stepTwoEvidence(in, due, nil, linked)...)
	case !opened && missed != "":
		v.Skip(missed)
	}
}

// change is a process event at its position on the timeline.
type change struct {
	pos int
	ev  timeline.Event
}

// changes are actor's process events that started or stopped it between
// positions from and to (exclusive), in order.
func changes(p judge.Processes, actor string, from, to int) []change {
	var out []change
	for _, s := range p.Downs(actor) {
		if s.FromPos > from && s.FromPos < to {
			out = append(out, change{s.FromPos, s.Stop})
		}
		if !s.To.IsZero() && s.ToPos > from && s.ToPos < to {
			out = append(out, change{s.ToPos, s.Up})
		}
	}
	return out
}

// nextChange is the first of the node's mirror pod write pk, its file
// event fk and the process event ups[0] (the first of each still to
// read), before position end, and its event; -1 if none.
func (n *node) nextChange(pk, fk int, ups []change, end int) (int, timeline.Event) {
	q, e := end, timeline.Event{}
	if pk < len(n.pods) && n.pods[pk].pos < q {
		q, e = n.pods[pk].pos, n.pods[pk].ev
	}
	if fk < len(n.files) && n.files[fk].pos < q {
		q, e = n.files[fk].pos, n.files[fk].ev
	}
	if len(ups) > 0 && ups[0].pos < q {
		q, e = ups[0].pos, ups[0].ev
	}
	if q == end {
		return -1, e
	}
	return q, e
}

// timeBefore is the time of the timeline's last event in the i-th
// install's window: the one before the next install, or the timeline's
// last.
func (n *node) timeBefore(i int) time.Time {
	if nx := n.next(i); nx != nil {
		return nx.prevAt
	}
	return n.lastAt
}

// stepTwoOwed says what the startup-monitor owed, and from when.
func (c Config) stepTwoOwed(n *node, due *owed, what string, rev int, j *judge.Judging) string {
	s := fmt.Sprintf("%s was ready (mirror pod Ready=True at revision %d at %s): %s owed the link of last-known-good to %d and then the removal of its own manifest",
		what, rev, j.Offset(due.ready.Time), monitorActor(n.name), rev)
	switch e := due.at; {
	case e.Object.Kind == timeline.KindProcess:
		s += " once started at " + j.Offset(e.Time)
	case e.Object.Kind == timeline.KindFile && e.Verb == timeline.VerbUnlock:
		s += fmt.Sprintf(" once %s released the installer lock at %s", e.Actor, j.Offset(e.Time))
	case e.Object.Kind == timeline.KindFile:
		s += " once its manifest was written at " + j.Offset(e.Time)
	default:
		s += " at that instant"
	}
	return s
}

// stepTwoLate fails a startup-monitor that had not done step 2 by the
// event at q, after it was due, and says what it did later, if anything.
func (c Config) stepTwoLate(n *node, in *install, due *owed, linked *fileEvent, q, end int, what string, j *judge.Judging, v *finding) {
	monitor, rev := monitorActor(n.name), in.note.revision
	done, link := "had done neither", linked
	if linked != nil {
		done = fmt.Sprintf("had only linked it (at %s), not removed its manifest", j.Offset(linked.ev.Time))
	} else {
		link = n.linkAfter(q, end, monitor, rev)
	}
	removal := n.removalAfter(q, end, monitor)
	var later []string
	if link != nil && linked == nil {
		later = append(later, "linked it at "+j.Offset(link.ev.Time))
	}
	if removal != nil {
		later = append(later, "removed its manifest at "+j.Offset(removal.ev.Time))
	}
	msg := c.stepTwoOwed(n, due, what, rev, j) + fmt.Sprintf(", but by %s %s", j.Offset(due.at.Time.Add(c.late())), done)
	if len(later) > 0 {
		msg += " (it " + strings.Join(later, " and ") + ")"
	}
	var removed *timeline.Event
	if removal != nil {
		removed = &removal.ev
	}
	v.Fail(msg, stepTwoEvidence(in, due, removed, link)...)
}

// removalAfter is the startup-monitor's first removal of its own manifest
// at or after position from and before end, nil if none.
func (n *node) removalAfter(from, end int, monitor string) *fileEvent {
	for k := range n.files {
		if fe := &n.files[k]; fe.pos >= from && fe.pos < end && fe.ev.Verb == timeline.VerbRemove && within(monitorManifest, fe.path) && fe.ev.Actor == monitor {
			return fe
		}
	}
	return nil
}

// linkAfter is the startup-monitor's first link of last-known-good to rev
// at or after position from and before end, nil if none.
func (n *node) linkAfter(from, end int, monitor string, rev int) *fileEvent {
	for k := range n.files {
		if fe := &n.files[k]; fe.pos >= from && fe.pos < end && fe.ev.Verb == timeline.VerbSymlink && fe.path == lastKnownGood &&
			fe.ev.Actor == monitor && fe.target == revisionDir(rev) {
			return fe
		}
	}
	return nil
}

// laterLink says when the startup-monitor linked last-known-good to rev
// after removing its manifest, if it did.
func laterLink(n *node, q, end int, monitor string, rev int, j *judge.Judging) string {
	if l := n.linkAfter(q, end, monitor, rev); l != nil {
		return fmt.Sprintf(" (it linked it at %s, after)", j.Offset(l.ev.Time))
	}
	return ""
}

// lapse says why step 2 was not owed, or stopped being owed.
func lapse(own bool, ready *podWrite, down bool, lock lockSpan, held bool) string {
	switch {
	case !own:
		return "its manifest was no longer on the node"
	case ready == nil:
		return "the operand was no longer ready"
	case down:
		return "the startup-monitor was down"
	case held:
		return lock.holder + " held the installer lock"
	}
	return "nothing stopped it"
}

func stepTwoEvidence(in *install, due *owed, removal *timeline.Event, linked *fileEvent) []timeline.Event {
	out := []timeline.Event{in.ev, due.ready}
	if due.atPos != due.readyPos {
		out = append(out, due.at)
	}
	if linked != nil {
		out = append(out, linked.ev)
	}
	if removal != nil {
		out = append(out, *removal)
	}
	return out
}
