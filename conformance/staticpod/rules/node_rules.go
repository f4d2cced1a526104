package rules

import (
	"fmt"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// STATICPOD-009: while last-known-good is linked, nothing removes the link
// or the revision it points to (003 §Pruner). Every removal under the
// static-pods directory while a link exists is judged.
func (c Config) lastKnownGoodKept(j *judge.Judging) judge.Verdict {
	if c.libraryGo() {
		return judge.Verdict{Status: reports.Skip, Message: fmt.Sprintf("not judged: library-go's pruner does not know the last-known-good link (docs/upstream.md), so the %s profile is not held to 003 §Pruner", c.Profile)}
	}
	var v finding
	for _, n := range c.factsOf(j).nodes {
		var link *fileEvent
		for k, fe := range n.files {
			switch {
			case fe.ev.Verb == timeline.VerbSymlink && fe.path == lastKnownGood:
				link = &n.files[k]
			case fe.ev.Verb != timeline.VerbRemove || link == nil:
				// Only removals while a link exists are judged.
			case within(lastKnownGood, fe.path):
				v.Judged++
				v.Fail(fmt.Sprintf("%s removed %s on %s at %s: the last-known-good link, to %s since %s", fe.ev.Actor, fe.path, n.name, j.Offset(fe.ev.Time), link.target, j.Offset(link.ev.Time)), link.ev, fe.ev)
				link = nil
			case within(link.target, fe.path) || within(fe.path, link.target):
				v.Judged++
				v.Fail(fmt.Sprintf("%s removed %s on %s at %s: the last-known-good revision, linked at %s", fe.ev.Actor, fe.path, n.name, j.Offset(fe.ev.Time), j.Offset(link.ev.Time)), link.ev, fe.ev)
			case within(fe.path, staticPodsDir):
				v.Judged++
			}
		}
	}
	return v.verdict("nothing was removed from " + staticPodsDir + " while last-known-good was linked")
}

// STATICPOD-010: while one actor holds the installer lock, no other
// changes anything in the manifests directory, and no other takes the
// lock (003 §Coordination of Installer and Startup-Monitor).
func (c Config) lockHonoured(j *judge.Judging) judge.Verdict {
	var v finding
	for _, n := range c.factsOf(j).nodes {
		for _, s := range n.locks {
			v.Judged++
			held := fmt.Sprintf("%s held the installer lock on %s (from %s)", s.holder, n.name, j.Offset(s.lock.Time))
			for _, fe := range n.files {
				if fe.pos <= s.lockPos || s.unlockPos >= 0 && fe.pos >= s.unlockPos || fe.ev.Actor == s.holder {
					continue
				}
				switch {
				case fe.ev.Verb == timeline.VerbLock && fe.path == lockFile:
					v.Fail(fmt.Sprintf("%s took the installer lock at %s while %s", fe.ev.Actor, j.Offset(fe.ev.Time), held), s.lock, fe.ev)
				case changesManifests(fe):
					v.Fail(fmt.Sprintf("%s did %s %s at %s while %s", fe.ev.Actor, fe.ev.Verb, fe.path, j.Offset(fe.ev.Time), held), s.lock, fe.ev)
				}
			}
		}
	}
	return v.verdict("the installer lock was never taken in this run")
}

// changesManifests tells whether a file event changes what is in the
// manifests directory, the kubelet's static pod path.
func changesManifests(fe fileEvent) bool {
	switch fe.ev.Verb {
	case timeline.VerbWrite, timeline.VerbRename, timeline.VerbSymlink, timeline.VerbRemove:
		return within(fe.path, manifestsDir) || within(manifestsDir, fe.path) ||
			fe.ev.Verb == timeline.VerbRename && within(fe.target, manifestsDir)
	}
	return false
}
