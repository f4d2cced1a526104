package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/sim/timeline"
)

// The rules on the Probe's status the aggregator keeps (002 §Example
// Workflow): OLM-001 (Upgradeable), OLM-002 (probeResources) and the
// Style rule OLM-010 (the example's spellings).

// statusWatch judges an output of Probe ref that the aggregator derives
// from the CRs, the CRDs and the Probe's spec.
func statusWatch(ref timeline.ObjectRef, check func(w *world) (string, bool)) watch {
	return watch{
		actor: actorAggregator,
		input: func(e timeline.Event, _, now *world) bool {
			if !e.IsWrite() {
				return false
			}
			if e.Object == ref {
				_, spec := e.Field(fieldSpec)
				return e.Role != RoleAggregator || spec || e.Verb == timeline.VerbCreate || e.Verb == timeline.VerbDelete
			}
			return isCRD(e.Object) || isCR(e.Object) && now.served(e.Object.Group)
		},
		output: func(e timeline.Event) bool { return e.IsWrite() && e.Object == ref && e.Role == RoleAggregator },
		check:  check,
	}
}

// statusChecks are the checks of Probe ref's status: OLM-001's, OLM-002's
// and OLM-010's.
func (c Config) statusChecks(ref timeline.ObjectRef) [3]func(w *world) (string, bool) {
	return [3]func(w *world) (string, bool){c.upgradeableCheck(ref), c.listCheck(ref), c.spellingCheck(ref)}
}

// upgradeableReflects is OLM-001.
func (c Config) upgradeableReflects(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r001] }

// upgradeableCheck is OLM-001's check of Probe ref.
func (c Config) upgradeableCheck(ref timeline.ObjectRef) func(w *world) (string, bool) {
	return func(w *world) (string, bool) {
		p, ok := w.probes[ref]
		if !ok || !p.aggregated() {
			return "", false
		}
		blocks := c.aggregate(w, p.spec).blocks
		got, has := p.conds[condUpgradeable]
		seen := "absent"
		if has {
			seen = got.Status
		}
		if len(blocks) > 0 && seen != statusFalse {
			return fmt.Sprintf("%s: Upgradeable is %s, want False: %s blocks", ref, seen, blocks[0]), true
		}
		if len(blocks) == 0 && seen != statusTrue {
			return fmt.Sprintf("%s: Upgradeable is %s, want True: no CR blocks under the reading %q", ref, seen, c.reading()), true
		}
		return "", true
	}
}

// reading is the reading in force, by name.
func (c Config) reading() string {
	if c.Reading == ReadingBlocks {
		return ReadingBlocks
	}
	return ReadingHolds
}

// probeResourcesListed is OLM-002.
func (c Config) probeResourcesListed(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r002] }

// listCheck is OLM-002's check of Probe ref.
func (c Config) listCheck(ref timeline.ObjectRef) func(w *world) (string, bool) {
	return func(w *world) (string, bool) {
		p, ok := w.probes[ref]
		if !ok || !p.aggregated() {
			return "", false
		}
		if why := listProblem(p.resources, c.aggregate(w, p.spec)); why != "" {
			return fmt.Sprintf("%s: status.probeResources %s", ref, why), true
		}
		return "", true
	}
}

// listProblem says how a listed status.probeResources differs from what
// is owed (want): a CR owed and not listed, listed twice or without
// reason, reasons missing a True condition the Important expression
// names, or other than those and one reason for the expression a CR
// fails. Order is not judged (002 gives none), nor the spelling of the
// reason for a failed expression (OLM-010), nor the entries of a probe
// resource whose Important expression is open.
func listProblem(got []resourceStatus, w want) string {
	var rest []resourceStatus
	for _, r := range got {
		if !w.open[r.Kind] {
			rest = append(rest, r)
		}
	}
	for _, o := range w.owed {
		k := slices.IndexFunc(rest, o.matches)
		if k < 0 {
			return fmt.Sprintf("does not list %s %s/%s (%s)", o.plural, o.namespace, o.name, o.why())
		}
		r := rest[k]
		rest = slices.Delete(rest, k, k+1)
		missing, extra := minus(o.important, r.Reasons), minus(r.Reasons, o.important)
		switch {
		case len(missing) > 0:
			return fmt.Sprintf("lists %s without the True condition %s its Important expression names (%s)", entryText(r), missing[0], o.why())
		case o.blocks != "" && len(extra) != 1:
			return fmt.Sprintf("lists %s: want one reason for failing %q beside the Important ones (%s)", entryText(r), o.blocks, o.why())
		case o.blocks == "" && len(extra) > 0:
			return fmt.Sprintf("lists %s with the reason %s, though it does not block and its Important expression names no such True condition (%s)", entryText(r), extra[0], o.why())
		}
	}
	if len(rest) > 0 {
		return fmt.Sprintf("lists %s, which has no reason to be listed (no CR it names blocks or has a True condition its Important expression names)", entryText(rest[0]))
	}
	return ""
}

// why says what an owed CR has to be listed for.
func (o owed) why() string {
	var parts []string
	if o.blocks != "" {
		parts = append(parts, fmt.Sprintf("it fails %q", o.blocks))
	}
	if len(o.important) > 0 {
		parts = append(parts, "True: "+strings.Join(o.important, ", "))
	}
	return strings.Join(parts, "; ")
}

// minus is a without one occurrence of each element of b.
func minus(a, b []string) []string {
	left := slices.Clone(a)
	for _, x := range b {
		if k := slices.Index(left, x); k >= 0 {
			left = slices.Delete(left, k, k+1)
		}
	}
	return left
}

// entryText writes a listed CR as "foos default/foo-example (!Migrating,
// UnhealthyDatabase)".
func entryText(r resourceStatus) string {
	return fmt.Sprintf("%s %s/%s (%s)", r.Kind, r.Namespace, r.Name, strings.Join(r.Reasons, ", "))
}

// seedSpellings is OLM-010, a Style rule: where the Probe's status has
// what 002 §Example Workflow shows, it is spelled as the example spells
// it: Upgradeable False with reason NotUpgradeable and the example's
// message, a blocking CR's kind its CRD's plural and its reason the
// Upgradeable expression as written.
func (c Config) seedSpellings(j *judge.Judging) judge.Verdict { return c.verdicts(j)[r010] }

// spellingCheck is OLM-010's check of Probe ref.
func (c Config) spellingCheck(ref timeline.ObjectRef) func(w *world) (string, bool) {
	return func(w *world) (string, bool) {
		p, ok := w.probes[ref]
		if !ok || !p.aggregated() {
			return "", false
		}
		got, has := p.conds[condUpgradeable]
		if !has || got.Status != statusFalse {
			return "", false
		}
		if got.Reason != reasonNotUpgradeable || got.Message != messageNotUpgradeable {
			return fmt.Sprintf("%s: Upgradeable False is %s %q, the seed's example is %s %q", ref, got.Reason, got.Message, reasonNotUpgradeable, messageNotUpgradeable), true
		}
		for _, o := range c.aggregate(w, p.spec).owed {
			k := slices.IndexFunc(p.resources, o.matches)
			if o.blocks == "" || k < 0 {
				continue
			}
			if r := p.resources[k]; r.Kind != o.plural || !slices.Contains(r.Reasons, o.blocks) {
				return fmt.Sprintf("%s: status.probeResources lists %s, the seed's example has kind %s and the reason %q", ref, entryText(r), o.plural, o.blocks), true
			}
		}
		return "", true
	}
}
