package component

import (
	"slices"
	"strings"
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
	// nothing (breaks the meaning of lastTransitionTime, UPSTREAM
	// "Kubernetes conditions in general", that 001 §Conditions' godoc
	// refers to).
	ChurnsTransitions Flaw = "churns-transitions"
	// SpacedReason writes every reason as words ("Rolling out", "As
	// expected") instead of CamelCase (breaks the reason's pattern,
	// UPSTREAM "Kubernetes conditions in general"). A one-word reason
	// ("Installing") reads the same.
	SpacedReason Flaw = "spaced-reason"
)

// Flaws lists every flaw, for a registry of broken subjects: in the order
// they were added, so that a registry built from it stays stable.
func Flaws() []Flaw {
	return []Flaw{
		EarlyVersion, NeverProgressing, EarlyAvailable, SplitWrite, SilentUpgradeable, SilentDegraded, StaleCompletion,
		NeverDegraded, IgnoresBlockers, ProgressingAtRest, KeepsOldVersion, LowercaseMessages, WordyProgressing,
		PunctuatedAvailable, ChurnsTransitions, SpacedReason,
	}
}

func (p Params) has(f Flaw) bool { return slices.Contains(p.Flaws, f) }

// reasonReconciling is ProgressingAtRest's reason; the reference never
// writes it.
const reasonReconciling = "Reconciling"

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
