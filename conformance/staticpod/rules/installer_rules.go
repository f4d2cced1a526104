package rules

import (
	"fmt"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
)

func installerActor(node string) string { return "installer/" + node }

// STATICPOD-014: every ask of the operator (a rollout or a retry) is
// carried out: the installer writes the asked revision's operand manifest
// within the reaction bound of the ask (003 §User Stories 4: "every good
// configuration is eventually rolled out and not delayed much longer than
// a temporary failure condition persists"; §Retries: a failing revision
// "will be retried to roll-out"). A retry the operator asks but nobody
// installs rolls nothing out. The installer waits while another actor
// holds the lock (003 §Coordination: the bound runs from the unlock), a
// down installer owes it once back (not judged), and a later ask replaces
// an earlier one not yet carried out. An ask of the revision whose
// manifest (not a fallback) is in place already is carried out.
func (c Config) asksCarriedOut(j *judge.Judging) judge.Verdict {
	f := c.factsOf(j)
	if !f.asksRecorded {
		return noAsks()
	}
	var v finding
	var reactions []time.Duration
	for _, n := range f.nodes {
		installer := installerActor(n.name)
		for k, a := range n.asks {
			what := fmt.Sprintf("%s: the operator asked for revision %d at %s", n.name, a.revision, j.Offset(a.ev.Time))
			if in := n.lastInstallBefore(a.pos); in != nil && !in.note.fallback && in.note.revision == a.revision {
				v.Judged++
				continue // in place already
			}
			stopPos, stop, stopping := f.events, j.End, "the end of the run at "+j.Offset(j.End)
			if k+1 < len(n.asks) {
				nx := n.asks[k+1]
				stopPos, stop, stopping = nx.pos, nx.ev.Time, fmt.Sprintf("its next ask, of revision %d at %s", nx.revision, j.Offset(nx.ev.Time))
			}
			done := n.installedBy(installer, a.revision, a.pos, stopPos)
			until := stop
			if done != nil {
				until = done.at()
			}
			due := n.installDue(a.ev.Time, until, installer).Add(c.late())
			switch {
			case done != nil && !done.at().After(due):
				v.Judged++
				reactions = append(reactions, done.at().Sub(a.ev.Time))
			case f.procs.DownDuring(installer, a.ev.Time, until):
				v.Skip(what + ": " + installer + " was down before it carried it out")
			case done != nil:
				v.Judged++
				reactions = append(reactions, done.at().Sub(a.ev.Time))
				v.Fail(fmt.Sprintf("%s; %s wrote it at %s, due by %s (the reaction bound %s)", what, installer, j.Offset(done.at()), j.Offset(due), c.Reaction), a.ev, done.ev)
			case !stop.After(due):
				v.Skip(fmt.Sprintf("%s: not due before %s", what, stopping))
			default:
				v.Judged++
				v.Fail(fmt.Sprintf("%s; %s had not written its manifest by %s (the reaction bound %s), nor before %s: an ask nobody installs rolls nothing out", what, installer, j.Offset(due), c.Reaction, stopping), a.ev)
			}
		}
	}
	out := v.verdict("the operator asked for nothing in this run")
	if len(reactions) > 0 {
		out.Measures = []reports.Measure{measure("ask to install", reactions, c.late())}
	}
	return out
}

// lastInstallBefore is the last operand manifest write before pos, nil if
// none.
func (n *node) lastInstallBefore(pos int) *install {
	var out *install
	for _, in := range n.installs {
		if in.pos >= pos {
			break
		}
		out = in
	}
	return out
}

// installedBy is the first write of revision's operand manifest (not a
// fallback) by actor between positions from and to, nil if none.
func (n *node) installedBy(actor string, revision, from, to int) *install {
	for _, in := range n.installs {
		if in.pos > from && in.pos < to && in.ev.Actor == actor && !in.note.fallback && in.note.revision == revision {
			return in
		}
	}
	return nil
}

// installDue is when an install asked at t is due, before the reaction
// bound: t, or the last release before until of a lock span another actor
// than the installer held at some instant from t on (003 §Coordination:
// the installer waits for the lock).
func (n *node) installDue(t, until time.Time, installer string) time.Time {
	due := t
	for _, s := range n.locks {
		if s.holder == installer || s.lock.Time.After(until) || s.unlockPos >= 0 && s.unlock.Time.Before(t) {
			continue
		}
		if s.unlockPos < 0 {
			return until // still held: nothing is due while it is
		}
		if s.unlock.Time.After(due) {
			due = s.unlock.Time
		}
	}
	return due
}
