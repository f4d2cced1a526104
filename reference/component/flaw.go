package component

import (
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Flaw is a deliberate deviation from seed 001, for the broken subjects
// that prove the rules can fail.
type Flaw string

// The flaws, each a single deviation (flaw_test.go shows it is the only one).
const (
	// EarlyVersion reports the new versions as soon as every operand's spec
	// asks for them, while old pods still run (breaks 001 §Version
	// reporting during an upgrade).
	EarlyVersion Flaw = "early-version"
	// NeverProgressing never sets Progressing True (breaks 001 §What should
	// an operator report, honored by components 3).
	NeverProgressing Flaw = "never-progressing"
	// EarlyAvailable reports Available as soon as every operand has a ready
	// pod, before the first rollout completes (breaks honored by
	// components 1).
	EarlyAvailable Flaw = "early-available"
	// SplitWrite writes the conditions and the versions in two updates,
	// conditions first (breaks 001 §Status).
	SplitWrite Flaw = "split-write"
	// SilentUpgradeable sets Upgradeable False with no message (breaks
	// honored by components 4).
	SilentUpgradeable Flaw = "silent-upgradeable"
	// SilentDegraded sets Degraded (or Failing) True with no message
	// (breaks 001 §Conditions).
	SilentDegraded Flaw = "silent-degraded"
	// StaleCompletion keeps Progressing's lastTransitionTime at an
	// upgrade's completion (breaks 001 §Version reporting during an
	// upgrade: "MUST set lastTransitionTime on Progressing to the current
	// time").
	StaleCompletion Flaw = "stale-completion"
	// NeverDegraded leaves Degraded (or Failing) False when a rollout makes
	// no progress for StuckAfter, while Progressing says it is stuck
	// (breaks 001 §What should an operator report, honored by components
	// 2: "reports Failing when it can't accomplish its task"). An
	// ApplyError still degrades: the stall is what it hides.
	NeverDegraded Flaw = "never-degraded"
	// IgnoresBlockers keeps Upgradeable True whatever the Blockers (breaks
	// honored by components 4: "reports Upgradeable as false when it
	// wishes to prevent an upgrade for an admin-correctable condition").
	IgnoresBlockers Flaw = "ignores-blockers"
	// ProgressingAtRest sets Progressing True, reason Reconciling,
	// "Reconciling component <name> at version <v>", at a process's first
	// look (Input.FirstLook) that finds nothing to roll out and Progressing
	// not True: a restart at the same version. Its next look finds the
	// rollout it did not have complete and sets Progressing False, stamped
	// (breaks honored by components 3: "It should not report progressing
	// when it is reconciling a previously known state").
	ProgressingAtRest Flaw = "progressing-at-rest"
	// KeepsOldVersion keeps versions[name=operator] at the version it
	// reported before an upgrade, once that upgrade is complete (the
	// operands' entries move; on install it reports the first version),
	// and its messages name that version, so the version operator waits
	// for it forever (breaks 001 §Version reporting during an upgrade and
	// honored by components 5).
	KeepsOldVersion Flaw = "keeps-old-version"
	// LowercaseMessages starts every condition message it writes with a
	// lower-case letter (breaks 001 §Conditions: "All messages should
	// start with a capital letter").
	LowercaseMessages Flaw = "lowercase-messages"
	// WordyProgressing makes every Progressing message over 10 words, by a
	// clause naming who observed it (breaks 001 §Conditions: "a terse,
	// human-readable message ... in 5-10 words").
	WordyProgressing Flaw = "wordy-progressing"
	// PunctuatedAvailable ends the Available message with a full stop
	// (breaks 001 §Conditions: "Available ... a single sentence without
	// punctuation").
	PunctuatedAvailable Flaw = "punctuated-available"
	// ChurnsTransitions moves the lastTransitionTime of each of its
	// conditions to now in every write it makes, whether the condition's
	// status changed or not; a look with nothing to write still writes
	// nothing (breaks the meaning of lastTransitionTime, docs/upstream.md,
	// "Kubernetes conditions in general", that 001 §Conditions' godoc
	// refers to).
	ChurnsTransitions Flaw = "churns-transitions"
	// SpacedReason writes every reason as words ("Rolling out", "As
	// expected") instead of CamelCase (breaks the reason's pattern,
	// docs/upstream.md, "Kubernetes conditions in general"). A one-word reason
	// ("Installing") reads the same.
	SpacedReason Flaw = "spaced-reason"
	// AvailableOnCreation counts the first rollout complete once every
	// replica, or node, has a pod at the target, ready or not: Available
	// comes at the last pod's creation rather than its readiness (breaks
	// honored by components 1).
	AvailableOnCreation Flaw = "available-on-creation"
	// InstallVersionEarly reports the first versions as soon as every
	// operand's spec asks for them, before the installation is rolled out;
	// its Available follows the version it reports (breaks 001 §What
	// should an operator report, honored by components 5, and so 1).
	InstallVersionEarly Flaw = "install-version-early"
	// VersionShortOne reports the new versions once every spec asks for
	// them and at most one old pod is left (breaks 001 §Version reporting
	// during an upgrade: "While any of your operands are still running
	// software from the previous version").
	VersionShortOne Flaw = "version-short-one"
	// VersionAtResync reports the versions of a complete rollout only at a
	// periodic resync, a minute after its last progress: beyond the
	// rules' 30s reaction bound (breaks honored by components 5: "reports
	// when it has rolled out the new version").
	VersionAtResync Flaw = "version-at-resync"
	// ProgressingLate40s leaves Progressing False for the first 40s of a
	// rollout, over the "second or two" and the rules' 30s reaction bound
	// (breaks 001 §Conditions: "Progressing must be true if the operator
	// is actually making change to the operand").
	ProgressingLate40s Flaw = "progressing-late-40s"
	// UnversionedProgressing says how many pods are updated but not the
	// version it moves to (breaks honored by components 3: "it should
	// include the version in the message").
	UnversionedProgressing Flaw = "unversioned-progressing"
	// ProgressingOnBlocker reports Progressing True, reason Reconciling,
	// while an administrator's blocker stands at rest: a blocker is no
	// new state of the operands (breaks honored by components 3).
	ProgressingOnBlocker Flaw = "progressing-on-blocker"
	// StampEarly1s stamps Progressing's lastTransitionTime at a completion
	// one second before the write (breaks 001 §Version reporting during an
	// upgrade: "to the current time").
	StampEarly1s Flaw = "stamp-early-1s"
	// StampRolloutStart stamps Progressing's lastTransitionTime at a
	// completion with the instant the rollout's specs were written.
	StampRolloutStart Flaw = "stamp-rollout-start"
	// DegradedLate1m reports a stall a minute after StuckAfter, beyond the
	// rules' 30s reaction bound (breaks honored by components 2 as read
	// with the 10m threshold).
	DegradedLate1m Flaw = "degraded-late-1m"
	// DegradedUnknown sets Degraded Unknown, not True, on a stall: it
	// cannot tell why the pods do not get ready (breaks honored by
	// components 2). An ApplyError still sets it True.
	DegradedUnknown Flaw = "degraded-unknown"
	// TerseDegraded gives a True Degraded its reason as its message
	// (breaks 001 §Conditions: "describe in detail").
	TerseDegraded Flaw = "terse-degraded"
	// NounDegraded says a stall as "<kind> <name> stuck", the operand named
	// as in the middle of a sentence (breaks 001 §Conditions: a capital
	// letter, and detail).
	NounDegraded Flaw = "noun-degraded"
	// NameFirstAvailable starts the Available message with the component's
	// name, lower case ("etcd has deployed 4.0.0"; breaks 001
	// §Conditions: "start with a capital letter").
	NameFirstAvailable Flaw = "name-first-available"
	// PodListProgressing adds to the rolling-out message the pods it waits
	// for, which makes it over 10 words (breaks 001 §Conditions: "5-10
	// words").
	PodListProgressing Flaw = "pod-list-progressing"
	// DetailedStuckProgressing puts the stall's detail, Degraded's
	// message, in Progressing's (breaks 001 §Conditions: "terse").
	DetailedStuckProgressing Flaw = "detailed-stuck-progressing"
	// TwoSentenceAvailable adds a second sentence to the Available message
	// of a deployed component (breaks 001 §Conditions: "a single
	// sentence").
	TwoSentenceAvailable Flaw = "two-sentence-available"
	// EllipsisInstalling ends the installing Available message with "..."
	// (breaks 001 §Conditions: "without punctuation").
	EllipsisInstalling Flaw = "ellipsis-installing"
	// TransientUpgradeable says what to fix only in the write that turns
	// Upgradeable False, and drops the message in the next (breaks
	// honored by components 4).
	TransientUpgradeable Flaw = "transient-upgradeable"
	// UpgradeableWhileRolling sets Upgradeable False, with no message,
	// while it rolls out (breaks honored by components 4: a rollout is no
	// admin-correctable condition, and the message must say what to fix).
	UpgradeableWhileRolling Flaw = "upgradeable-while-rolling"
	// StaleRestMessage words Progressing at rest from the versions as the
	// look found them, so the write that completes an upgrade says the old
	// version beside the new one in versions, until its next look (breaks
	// 001 §Status: "only valid together").
	StaleRestMessage Flaw = "stale-rest-message"
	// UnavailableWhileRolling reports Available False, reason Upgrading,
	// whenever it rolls out a version once installed, while its old pods
	// serve (breaks 001 §Conditions: "Available must be true if the
	// operand is functional ... If this is false, it means there is an
	// outage").
	UnavailableWhileRolling Flaw = "unavailable-while-rolling"
	// ProgressingDropsVersion names the version it moves to only in the write
	// that turns Progressing True; the writes after it, while the rollout goes
	// on, say "Rolling out: n of m pods updated" (breaks honored by components
	// 3, for the whole move: decision 001,
	// conformance/clusteroperator/README.md).
	ProgressingDropsVersion Flaw = "progressing-drops-version"
	// StaysBlocked keeps Upgradeable False, as it last said, once the
	// administrator's blocker is gone (breaks honored by components 4:
	// false "when it wishes to prevent an upgrade for an admin-correctable
	// condition", and there is none left).
	StaysBlocked Flaw = "stays-blocked"
	// SilentOnApplyErrors leaves Degraded (or Failing) as a stall alone
	// would set it when its own writes of the operands fail (an
	// ApplyError): it reports stalled pods, never that the API server
	// refused what it had to apply (breaks honored by components 2: "the
	// API servers are down so I failed to update").
	SilentOnApplyErrors Flaw = "silent-on-apply-errors"
)

// Flaws lists every flaw, for a registry of broken subjects: in the order
// they were added, so that a registry built from it stays stable.
func Flaws() []Flaw {
	return []Flaw{
		EarlyVersion, NeverProgressing, EarlyAvailable, SplitWrite, SilentUpgradeable, SilentDegraded, StaleCompletion,
		NeverDegraded, IgnoresBlockers, ProgressingAtRest, KeepsOldVersion, LowercaseMessages, WordyProgressing,
		PunctuatedAvailable, ChurnsTransitions, SpacedReason, AvailableOnCreation, InstallVersionEarly,
		VersionShortOne, VersionAtResync, ProgressingLate40s, UnversionedProgressing,
		ProgressingOnBlocker, StampEarly1s, StampRolloutStart, DegradedLate1m, DegradedUnknown, TerseDegraded,
		NounDegraded, NameFirstAvailable, PodListProgressing, DetailedStuckProgressing, TwoSentenceAvailable,
		EllipsisInstalling, TransientUpgradeable, UpgradeableWhileRolling, StaleRestMessage,
		UnavailableWhileRolling, ProgressingDropsVersion, StaysBlocked, SilentOnApplyErrors,
	}
}

func (p Params) has(f Flaw) bool { return slices.Contains(p.Flaws, f) }

// reasonReconciling is ProgressingAtRest's reason, reasonUpgrading
// UnavailableWhileRolling's; the reference writes neither.
const (
	reasonReconciling = "Reconciling"
	reasonUpgrading   = "Upgrading"
)

// wordyClause is what WordyProgressing adds to a Progressing message: 9
// words, so that even the shortest (6) goes over 10.
const wordyClause = ", as the operator of component %s last observed it"

// withVersion is vs with the entry name set to version, in its place.
func withVersion(vs []configv1.OperandVersion, name, version string) []configv1.OperandVersion {
	out := slices.Clone(vs)
	for i := range out {
		if out[i].Name == name {
			out[i].Version = version
		}
	}
	return out
}

// churn moves the lastTransitionTime of the conditions the operator owns
// to stamp (ChurnsTransitions).
func churn(conds []configv1.ClusterOperatorStatusCondition, stamp metav1.Time) {
	for i := range conds {
		if slices.Contains(owned, conds[i].Type) {
			conds[i].LastTransitionTime = stamp
		}
	}
}

// lowercase makes a message start with a lower-case letter
// (LowercaseMessages): capitalize's opposite.
func lowercase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// spaced writes a CamelCase reason as words (SpacedReason):
// "OperandStuck" is "Operand stuck".
func spaced(reason string) string {
	var b strings.Builder
	for i, r := range reason {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// versionDelay is how long after a rollout's last progress
// VersionAtResync reports its versions; zero for the reference.
func (p Params) versionDelay() time.Duration {
	if p.has(VersionAtResync) {
		return time.Minute
	}
	return 0
}

// flawedTiming holds back what ProgressingLate40s holds back: Progressing
// for the first 40s of a rollout.
func (p Params) flawedTiming(in Input, d *decision, applied bool, now time.Time) {
	if in.ApplyError != nil || !p.has(ProgressingLate40s) || !d.rolling || d.wasRolling {
		return
	}
	begin := now // the specs are written at this look
	if applied {
		begin = lastWritten(d.rs)
	}
	if due := begin.Add(40 * time.Second); now.Before(due) {
		d.quiet, d.next = true, earliest(d.next, due)
	}
}

// lastMoved is the last progress of any operand.
func lastMoved(rs []rollout) time.Time {
	var t time.Time
	for _, r := range rs {
		if r.moved.After(t) {
			t = r.moved
		}
	}
	return t
}

// lastWritten is when the last operand spec was written.
func lastWritten(rs []rollout) time.Time {
	var t time.Time
	for _, r := range rs {
		if r.Updated.After(t) {
			t = r.Updated
		}
	}
	return t
}

// oldPods counts the pods that run another level than their operand's
// target (VersionShortOne).
func oldPods(rs []rollout) int {
	n := 0
	for _, r := range rs {
		for _, pod := range r.Pods {
			if pod.Level != r.target {
				n++
			}
		}
	}
	return n
}

// created tells whether every operand asks for its target, runs no old
// pod and has a pod at the target, ready or not, on each replica or node
// it must run (AvailableOnCreation).
func created(rs []rollout) bool {
	for _, r := range rs {
		at := map[string]bool{}
		n := 0
		for _, pod := range r.Pods {
			if pod.Level == r.target {
				n++
				at[pod.Node] = true
			}
		}
		if r.Kind == DaemonSet {
			n = 0
			for _, node := range r.Nodes {
				if at[node] {
					n++
				}
			}
		}
		if !r.applied() || r.old() || n < r.want {
			return false
		}
	}
	return true
}

// waitingFor names the pods a rollout waits for (PodListProgressing): old
// or not ready, or "new pods" when none is there yet.
func waitingFor(rs []rollout) string {
	var names []string
	for _, r := range rs {
		for _, pod := range r.Pods {
			if pod.Level != r.target || !pod.Ready {
				names = append(names, pod.Name)
			}
		}
	}
	if len(names) == 0 {
		return "new pods"
	}
	return joinAnd(names)
}
