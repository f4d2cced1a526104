package clusteroperator

import (
	"github.com/opcert/opcert/conformance"
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

// operators are the component operator subjects: the reference, and one
// broken subject per flaw of reference/component, each breaking one
// requirement of seed 001 that a rule judges.
var operators = []conformance.Subject{
	{Name: "reference", Description: "reference/component: reports its ClusterOperator as seed 001 asks of a component", Impl: flawed()},
	{Name: "early-version", Description: "reports the new version while old operand pods still run (fails CO-002)", Impl: flawed(component.EarlyVersion)},
	{Name: "never-progressing", Description: "never sets Progressing True (fails CO-004)", Impl: flawed(component.NeverProgressing)},
	{Name: "early-available", Description: "reports Available as soon as each operand has a ready pod, before the first rollout completes (fails CO-001)", Impl: flawed(component.EarlyAvailable)},
	{Name: "split-write", Description: "writes the conditions and the versions in two updates (fails CO-006)", Impl: flawed(component.SplitWrite)},
	{Name: "silent-upgradeable", Description: "sets Upgradeable False with no message (fails CO-025)", Impl: flawed(component.SilentUpgradeable)},
	{Name: "silent-degraded", Description: "sets Degraded True with no message (fails CO-024)", Impl: flawed(component.SilentDegraded)},
	{Name: "stale-completion", Description: "leaves Progressing's lastTransitionTime where it was when an upgrade completes (fails CO-007)", Impl: flawed(component.StaleCompletion)},
	{Name: "never-degraded", Description: "never reports Degraded when a rollout is stuck (fails CO-008)", Impl: flawed(component.NeverDegraded)},
	{Name: "ignores-blockers", Description: "keeps Upgradeable True whatever the admin must fix (fails CO-009)", Impl: flawed(component.IgnoresBlockers)},
	{Name: "progressing-at-rest", Description: "reports Progressing when a restarted process reconciles a state it already reached (fails CO-005)", Impl: flawed(component.ProgressingAtRest)},
	{Name: "keeps-old-version", Description: "keeps reporting the old operator version once an upgrade is done (fails CO-003)", Impl: flawed(component.KeepsOldVersion)},
	{Name: "lowercase-messages", Description: "starts every condition message with a lowercase letter (warned by CO-021)", Impl: flawed(component.LowercaseMessages)},
	{Name: "wordy-progressing", Description: "writes Progressing messages of more than 10 words (warned by CO-022)", Impl: flawed(component.WordyProgressing)},
	{Name: "punctuated-available", Description: "ends the Available message with a period (warned by CO-023)", Impl: flawed(component.PunctuatedAvailable)},
	{Name: "churns-transitions", Description: "moves every condition's lastTransitionTime at every write (fails CO-020)", Impl: flawed(component.ChurnsTransitions)},
	{Name: "spaced-reason", Description: "writes reasons as words with spaces, not CamelCase (fails CO-020)", Impl: flawed(component.SpacedReason)},
}
