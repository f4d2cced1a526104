package clusteroperator

import (
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator/faithful"
	"github.com/opcert/opcert/reference/component"
)

// versionOperatorImpl marks the reference cluster-version operator; the
// role has no broken subjects yet (its rules are the components'
// guarantees, judged on what the components do).
type versionOperatorImpl struct{}

var versionOperators = []conformance.Subject{
	{Name: "reference", Description: "reference/cvo: sweeps the payload in order, waits at each ClusterOperator, refuses an upgrade while one reports Upgradeable=False",
		Impl: versionOperatorImpl{}},
}

// operatorImpl is a component operator subject: reference/component's core
// with the flaws it returns (none for the reference).
type operatorImpl func() []component.Flaw

func flawed(f ...component.Flaw) operatorImpl { return func() []component.Flaw { return f } }

// faithfulImpl is a faithful variant of the component operator
// (conformance/clusteroperator/faithful), written from the seed alone.
type faithfulImpl faithful.Variant

// operators are the component operator subjects: the reference, the
// faithful variants, and one broken subject per flaw of
// reference/component, each breaking one requirement of seed 001 that a
// rule judges.
var operators = []conformance.Subject{
	{Name: "reference", Description: "reference/component: reports its ClusterOperator as seed 001 asks of a component", Impl: flawed()},
	{Name: "faithful-requeue", Faithful: true, Impl: faithfulImpl(faithful.Requeue),
		Description: "written from seed 001: reacts at a requeue 20s after a change, Degraded, no Upgradeable unless blocked, the operator's version alone, Available as a quorum, its own words"},
	{Name: "faithful-resync", Faithful: true, Impl: faithfulImpl(faithful.Resync),
		Description: "written from seed 001: looks on a 25s resync, Failing, operand versions first, installed on 2/3 of a DaemonSet's nodes, an upgrade's version once no old pod runs, its own words"},
	{Name: "early-version", Description: "reports the new version while old operand pods still run (fails CO-002)", Impl: flawed(component.EarlyVersion)},
	{Name: "never-progressing", Description: "never sets Progressing True (fails CO-004)", Impl: flawed(component.NeverProgressing)},
	{Name: "early-available", Description: "reports Available as soon as each operand has a ready pod, before the first rollout completes (fails CO-001)", Impl: flawed(component.EarlyAvailable)},
	{Name: "split-write", Description: "writes the conditions and the versions in two updates (warned by CO-006)", Impl: flawed(component.SplitWrite)},
	{Name: "silent-upgradeable", Description: "sets Upgradeable False with no message (warned by CO-025)", Impl: flawed(component.SilentUpgradeable)},
	{Name: "silent-degraded", Description: "sets Degraded True with no message (warned by CO-024)", Impl: flawed(component.SilentDegraded)},
	{Name: "stale-completion", Description: "leaves Progressing's lastTransitionTime where it was when an upgrade completes (fails CO-007)", Impl: flawed(component.StaleCompletion)},
	{Name: "never-degraded", Description: "never reports Degraded when a rollout is stuck (fails CO-008)", Impl: flawed(component.NeverDegraded)},
	{Name: "ignores-blockers", Description: "keeps Upgradeable True whatever the admin must fix (fails CO-009)", Impl: flawed(component.IgnoresBlockers)},
	{Name: "progressing-at-rest", Description: "reports Progressing when a restarted process reconciles a state it already reached (warned by CO-005)", Impl: flawed(component.ProgressingAtRest)},
	{Name: "keeps-old-version", Description: "keeps reporting the old operator version once an upgrade is done (fails CO-003)", Impl: flawed(component.KeepsOldVersion)},
	{Name: "lowercase-messages", Description: "starts every condition message with a lowercase letter (warned by CO-021)", Impl: flawed(component.LowercaseMessages)},
	{Name: "wordy-progressing", Description: "writes Progressing messages of more than 10 words (warned by CO-022)", Impl: flawed(component.WordyProgressing)},
	{Name: "punctuated-available", Description: "ends the Available message with a period (warned by CO-023)", Impl: flawed(component.PunctuatedAvailable)},
	{Name: "churns-transitions", Description: "moves every condition's lastTransitionTime at every write (fails CO-020)", Impl: flawed(component.ChurnsTransitions)},
	{Name: "spaced-reason", Description: "writes reasons as words with spaces, not CamelCase (warned by CO-026)", Impl: flawed(component.SpacedReason)},
	{Name: "available-on-creation", Description: "reports Available once the last pod of its installation is created, not ready (fails CO-001)", Impl: flawed(component.AvailableOnCreation)},
	{Name: "install-version-early", Description: "reports its first version as soon as the operand specs ask for it, before the installation is rolled out (fails CO-002, CO-001)", Impl: flawed(component.InstallVersionEarly)},
	{Name: "version-short-one", Description: "reports the new version when all but one old pod are gone (fails CO-002)", Impl: flawed(component.VersionShortOne)},
	{Name: "version-at-resync", Description: "reports the new version only at its resync, a minute after the rollout completes, beyond the 30s reaction bound (fails CO-003)", Impl: flawed(component.VersionAtResync)},
	{Name: "progressing-late-40s", Description: "turns Progressing True 40s after a rollout begins, over the 2s and the 30s reaction bound (fails CO-004)", Impl: flawed(component.ProgressingLate40s)},
	{Name: "unversioned-progressing", Description: "reports Progressing without the version it moves to (fails CO-004)", Impl: flawed(component.UnversionedProgressing)},
	{Name: "progressing-on-blocker", Description: "reports Progressing while an admin's upgrade blocker stands at rest (warned by CO-005)", Impl: flawed(component.ProgressingOnBlocker)},
	{Name: "stamp-early-1s", Description: "stamps Progressing's lastTransitionTime 1s before the write that completes an upgrade (fails CO-007)", Impl: flawed(component.StampEarly1s)},
	{Name: "stamp-rollout-start", Description: "stamps Progressing's lastTransitionTime at completion with the rollout's start (fails CO-007)", Impl: flawed(component.StampRolloutStart)},
	{Name: "degraded-late-1m", Description: "reports a stalled rollout Degraded 1m after the 10 minutes, beyond the 30s reaction bound (fails CO-008)", Impl: flawed(component.DegradedLate1m)},
	{Name: "degraded-unknown", Description: "sets Degraded Unknown, not True, on a stalled rollout (fails CO-008)", Impl: flawed(component.DegradedUnknown)},
	{Name: "terse-degraded", Description: "gives a True Degraded its reason as its message (warned by CO-024)", Impl: flawed(component.TerseDegraded)},
	{Name: "noun-degraded", Description: "says a stall as \"deployment etcd stuck\" (warned by CO-024, CO-021)", Impl: flawed(component.NounDegraded)},
	{Name: "name-first-available", Description: "starts the Available message with the component's name, lower case (warned by CO-021)", Impl: flawed(component.NameFirstAvailable)},
	{Name: "pod-list-progressing", Description: "lists the pods it waits for in the Progressing message, over 10 words (warned by CO-022)", Impl: flawed(component.PodListProgressing)},
	{Name: "detailed-stuck-progressing", Description: "puts the stall's whole detail in the Progressing message (warned by CO-022)", Impl: flawed(component.DetailedStuckProgressing)},
	{Name: "two-sentence-available", Description: "writes the Available message of a deployed component in two sentences (warned by CO-023)", Impl: flawed(component.TwoSentenceAvailable)},
	{Name: "ellipsis-installing", Description: "ends the installing Available message with \"...\" (warned by CO-023)", Impl: flawed(component.EllipsisInstalling)},
	{Name: "transient-upgradeable", Description: "says what to fix only in the write that turns Upgradeable False, then drops it (warned by CO-025)", Impl: flawed(component.TransientUpgradeable)},
	{Name: "upgradeable-while-rolling", Description: "sets Upgradeable False with no message while it rolls out (warned by CO-025)", Impl: flawed(component.UpgradeableWhileRolling)},
	{Name: "stale-rest-message", Description: "completes an upgrade with Progressing's message naming the old version beside the new versions (warned by CO-006)", Impl: flawed(component.StaleRestMessage)},
	{Name: "unavailable-while-rolling", Description: "reports Available=False for a whole upgrade while its old pods serve (fails CO-010)", Impl: flawed(component.UnavailableWhileRolling)},
	{Name: "stays-blocked", Description: "keeps Upgradeable False once the administrator's blocker is cleared (fails CO-009)", Impl: flawed(component.StaysBlocked)},
	{Name: "progressing-drops-version", Description: "drops the version from Progressing's message after the write that turned it True (fails CO-004)", Impl: flawed(component.ProgressingDropsVersion)},
	{Name: "silent-on-apply-errors", Description: "reports Degraded for stalled pods, never when the API server refuses its operand writes (fails CO-008)", Impl: flawed(component.SilentOnApplyErrors)},
}
