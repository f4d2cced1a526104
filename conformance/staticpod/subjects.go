package staticpod

import (
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod/contract"
	"github.com/opcert/opcert/conformance/staticpod/faithful"
	sp "github.com/opcert/opcert/reference/staticpod"
)

// Roles of seed 003 (the rules' names) and of the simulated node.
const (
	RoleStartupMonitor = "startup-monitor"
	RoleInstaller      = "installer"
	RoleOperator       = "operator"
	RolePruner         = "pruner"
	RoleKubelet        = "kubelet"
	RoleOperand        = "operand"
)

// A role's core in a run is opcert's subject (parameters and a decision
// function, from reference/staticpod or a variant), made once per run and
// shared by every process of the role (it may remember what it saw), or a
// team's (library mode, library.go), made afresh for each process. The
// adapters ask each for the role contract's interface (instance).

// monitorImpl makes a startup-monitor subject's core from the run's
// settings.
type monitorImpl func(Config) monitorCore

type monitorCore struct {
	params sp.MonitorParams
	decide func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision
	team   func() (contract.Monitor, error)
}

// instance is the core one monitor process decides with.
func (c monitorCore) instance() (contract.Monitor, error) {
	if c.team != nil {
		return c.team()
	}
	return contract.MonitorFunc(func(v contract.MonitorView, now time.Time) contract.MonitorDecision {
		return c.decide(c.params, v, now)
	}), nil
}

// installerImpl makes an installer subject's parameters and core.
type installerImpl func(Config) installerCore

// installerCore is what the installer adapter asks for the operations that
// install a revision: reference/staticpod's Install, a variant, or a
// team's.
type installerCore struct {
	params  sp.InstallerParams
	install func(p sp.InstallerParams, revision int, lockHeld bool) []contract.Op
	team    func() (contract.Installer, error)
}

// instance is the core one installer process decides with.
func (c installerCore) instance() (contract.Installer, error) {
	if c.team != nil {
		return c.team()
	}
	return contract.InstallerFunc(func(revision int, lockHeld bool) []contract.Op {
		return c.install(c.params, revision, lockHeld)
	}), nil
}

// operatorImpl makes an operator subject's parameters and decision core.
type operatorImpl func(Config) operatorCore

type operatorCore struct {
	params sp.OperatorParams
	decide func(sp.OperatorParams, *contract.Fallback, contract.Node, time.Time) contract.OperatorDecision
	team   func() (contract.Operator, error)
}

// instance is the core one operator process decides with.
func (c operatorCore) instance() (contract.Operator, error) {
	if c.team != nil {
		return c.team()
	}
	return contract.OperatorFunc(func(mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
		return c.decide(c.params, mem, n, now)
	}), nil
}

// prunerImpl makes a pruner subject's parameters and core (a fresh one
// per run: a core may remember what it saw).
type prunerImpl func(Config) prunerCore

// prunerCore is what the pruner adapter asks for the revisions to delete:
// reference/staticpod's Prune, a variant, or a team's.
type prunerCore struct {
	params sp.PrunerParams
	prune  func(p sp.PrunerParams, revisions []int, keep, lastKnownGood int) []int
	team   func() (contract.Pruner, error)
}

// instance is the core one pruner process decides with.
func (c prunerCore) instance() (contract.Pruner, error) {
	if c.team != nil {
		return c.team()
	}
	return contract.PrunerFunc(func(revisions []int, keep, lastKnownGood int) []int {
		return c.prune(c.params, revisions, keep, lastKnownGood)
	}), nil
}

// Startup-monitor subjects: the reference, library-go's, and variants
// broken on purpose, each breaking one requirement of the seed.
var monitors = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Monitor, seed profile, with the run's timeout",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, sp.Monitor) })},
	{Name: "library-go", Profile: "library-go", Description: "reference/staticpod's Monitor, library-go profile (its checks, order and reasons)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.LibraryGo(), c.Timeout, sp.Monitor) })},
	{Name: "watchful", Faithful: true, Description: "faithful (conformance/staticpod/faithful): the seed's checks read the other way where the seed reads both, etcd failing as EtcdUnhealthy; its own messages; keeps its manifest after a fallback",
		Impl: monitorImpl(func(Config) monitorCore { return faithfulMonitor(faithful.Watchful()) })},
	{Name: "resyncing", Faithful: true, Description: "faithful (conformance/staticpod/faithful): reacts on a 30s resync within the reaction bound (falls back 30s after the timeout, links 20s after it sees the operand ready); its own messages, the hooks one per line",
		Impl: monitorImpl(func(Config) monitorCore { return faithfulMonitor(faithful.Resyncing()) })},
	{Name: "impatient", Description: "falls back after half the timeout (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout/2, sp.Monitor) })},
	{Name: "patient", Description: "falls back after twice the timeout, 10m (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), 2*c.Timeout, sp.Monitor) })},
	{Name: "wrong-reason", Description: "gives every fallback the reason NotReady (fails the reason rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, wrongReason) })},
	{Name: "no-annotations", Description: "falls back without the three fallback annotations (fails the annotation rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, noAnnotations) })},
	{Name: "eager-link", Description: "links last-known-good to its revision before the operand is ready (fails the link rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, eagerLink) })},
	{Name: "wrong-target", Description: "falls back one revision further than it should, two or more back (fails the fallback target rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, wrongTarget) })},
	{Name: "early-by-1s", Description: "falls back one second before the timeout, at 4m59s (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout-time.Second, sp.Monitor) })},
	{Name: "late-past-bound", Description: "falls back a second later than the timeout and the reaction bound allow, at 6m1s (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore {
			return monitorOf(sp.Seed(), c.Timeout+c.Reaction+time.Second, sp.Monitor)
		})},
	{Name: "timer-before-readiness", Description: "at the timeout, falls back on its previous look before it sees that the operand has just become ready, at that very instant (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, timerBeforeReadiness) })},
	{Name: "timer-from-start", Description: "runs its timeout from its process's start, not from its revision's manifest, so a leftover monitor falls back at once when its revision is rolled out (fails the timeout rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, timerFromStart) })},
	{Name: "crashloop-at-one", Description: "counts a single start-up attempt as CrashLooping (\"more than one\" read as \"at least one\"), so a started but never ready operand is CrashLooping (fails the reason rule)",
		Impl: monitorImpl(func(c Config) monitorCore {
			return seedMonitorWith(c, func(p *sp.MonitorParams) { p.Steps = crashLoopAtOneSteps() }, sp.Monitor)
		})},
	{Name: "no-hooks-in-message", Description: "leaves the unfinished post-start hooks out of a /readyz fallback's message (fails the reason rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, noHooksInMessage) })},
	{Name: "no-fallback-message", Description: "falls back with fallback-for-revision and fallback-reason but without the fallback-message annotation (fails the annotation rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, noFallbackMessage) })},
	{Name: "for-target-revision", Description: "writes the revision it falls back to in fallback-for-revision, not the failed one (fails the annotation rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, forTargetRevision) })},
	{Name: "healthz-is-ready", Description: "counts the operand ready once /healthz is green, one step before /readyz and the mirror pod are, and links it last-known-good then (fails the link rule)",
		Impl: monitorImpl(func(c Config) monitorCore {
			return seedMonitorWith(c, func(p *sp.MonitorParams) { p.Steps = healthzIsReadySteps() }, sp.Monitor)
		})},
	{Name: "links-failed-revision", Description: "links last-known-good to its revision when it falls back too, not only when ready (fails the link rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, linksFailedRevision) })},
	{Name: "ignores-last-known-good", Description: "always falls back to the previous revision, whatever last-known-good points at (fails the fallback target rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, ignoresLastKnownGood) })},
	{Name: "falls-back-in-bootstrap", Description: "with nothing to fall back to, rewrites its own revision's manifest as a fallback at the timeout instead of doing nothing (fails the fallback target rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, fallsBackInBootstrap) })},
	{Name: "ignores-lock", Description: "neither waits for nor takes the installer lock: decides and writes while the installer holds it (fails the lock rule)",
		Impl: monitorImpl(func(c Config) monitorCore {
			return seedMonitorWith(c, func(p *sp.MonitorParams) { p.HonourLock = false }, sp.Monitor)
		})},
	{Name: "lock-check-then-write", Description: "takes the installer lock only to see that it is free, releases it at once, then writes without it (fails the lock rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, lockCheckThenWrite) })},
	{Name: "never-links", Description: "once its operand is ready, removes its own manifest without linking last-known-good to its revision (fails the step 2 rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, neverLinks) })},
	{Name: "keeps-manifest", Description: "once its operand is ready, links last-known-good to its revision but never removes its own manifest (fails the step 2 rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, keepsManifest) })},
	{Name: "removes-before-linking", Description: "once its operand is ready, removes its own manifest and only then links last-known-good, the other way round from the seed (fails the step 2 rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, removesBeforeLinking) })},
	{Name: "links-late-past-bound", Description: "links last-known-good and removes its own manifest at a look a second later than the reaction bound after the first that found its operand ready (fails the step 2 rule)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, readyLate(c.Reaction+time.Second)) })},
}

// Installer subjects.
var installers = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Install: takes the installer lock, waits while it is held",
		Impl: installerImpl(func(Config) installerCore { return installerCore{params: sp.Seed().Installer, install: sp.Install} })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's installer (takes the lock as the seed does)",
		Impl: installerImpl(func(Config) installerCore {
			return installerCore{params: sp.LibraryGo().Installer, install: sp.Install}
		})},
	{Name: "ignores-lock", Description: "writes without taking or honouring the installer lock (fails the lock rule)",
		Impl: installerImpl(func(Config) installerCore { return installerCore{params: sp.InstallerParams{}, install: sp.Install} })},
	{Name: "retry-without-operand", Description: "installs a revision asked again but for the operand's manifest (resources and the startup-monitor's manifest only): the fallback keeps running and nothing is retried (fails the rule that every ask is carried out)",
		Impl: installerImpl(func(Config) installerCore {
			return installerCore{params: sp.Seed().Installer, install: retryWithoutOperand()}
		})},
	{Name: "skips-reinstall", Description: "installs a revision only the first time it is asked: a retry finds the revision's files from its first trial and is skipped, so nothing is retried (fails the rule that every ask is carried out)",
		Impl: installerImpl(func(Config) installerCore {
			return installerCore{params: sp.Seed().Installer, install: skipsReinstall()}
		})},
	{Name: "locks-late", Description: "takes the installer lock only around the operand manifest: writes the resources and the startup-monitor manifest before it, under anyone's lock (fails the lock rule)",
		Impl: installerImpl(func(Config) installerCore { return installerCore{params: sp.Seed().Installer, install: locksLate} })},
}

// Operator subjects.
var operators = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Operate, seed profile: retries after 10m doubling to 6h, never after CrashLooping or NeverStartedUp, Degraded until ready",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.Seed().Operator, decide: sp.Operate} })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's operator: first retry after 20m, capped at 2h, every reason retried, StaticPodFallbackRevisionDegraded",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.LibraryGo().Operator, decide: sp.Operate} })},
	{Name: "doubling-from-20m", Faithful: true, Description: "faithful (conformance/staticpod/faithful): first retry 20m after the fallback, doubling up to 2h, none after CrashLooping or NeverStartedUp; Degraded with its own reason and message",
		Impl: operatorImpl(func(Config) operatorCore { return faithfulOperator(faithful.Doubling()) })},
	{Name: "tripling", Faithful: true, Description: "faithful (conformance/staticpod/faithful): first retry 15m after the fallback, tripling up to 6h, each at its next 30s resync; the fallback's reason as Degraded's, the termination message first",
		Impl: operatorImpl(func(Config) operatorCore { return faithfulOperator(faithful.Tripling()) })},
	{Name: "retries-crashloop", Description: "retries after CrashLooping and NeverStartedUp too (fails the no-retry rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			p := sp.Seed().Operator
			p.NoRetry = nil
			return operatorCore{params: p, decide: sp.Operate}
		})},
	{Name: "hasty-retry", Description: "retries a failed revision 5m after the fallback instead of 10m (fails the back-off rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			p := sp.Seed().Operator
			p.Backoff.First = 5 * time.Minute
			return operatorCore{params: p, decide: sp.Operate}
		})},
	{Name: "no-termination-message", Description: "reports Degraded with the fallback message but drops the failed revision's termination message (fails the termination message rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return operatorCore{params: sp.Seed().Operator, decide: noTerminationMessage}
		})},
	{Name: "never-degraded", Description: "retries as the seed says but never reports Degraded (fails the Degraded rule)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.Seed().Operator, decide: neverDegraded} })},
	{Name: "retries-never-started-up", Description: "does not retry after CrashLooping, but retries after NeverStartedUp (fails the no-retry rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return seedOperatorWith(func(p *sp.OperatorParams) { p.NoRetry = []contract.Reason{contract.CrashLooping} })
		})},
	{Name: "retries-crash-looping", Description: "does not retry after NeverStartedUp, but retries after CrashLooping (fails the no-retry rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return seedOperatorWith(func(p *sp.OperatorParams) { p.NoRetry = []contract.Reason{contract.NeverStartedUp} })
		})},
	{Name: "retry-early-by-1s", Description: "retries a failed revision 9m59s after the fallback, one second early, doubling from there (fails the back-off rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return seedOperatorWith(func(p *sp.OperatorParams) { p.Backoff.First -= time.Second })
		})},
	{Name: "backoff-cap-past-6h", Description: "caps the back-off a second above 6h and the reaction bound (fails the back-off rule)",
		Impl: operatorImpl(func(c Config) operatorCore {
			return seedOperatorWith(func(p *sp.OperatorParams) { p.Backoff.Max = 6*time.Hour + c.Reaction + time.Second })
		})},
	{Name: "backoff-shrinks", Description: "waits 40m before the first retry, then half as long before each next one, down to 10m: the back-off shrinks (fails the back-off rule)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.Seed().Operator, decide: backoffShrinks} })},
	{Name: "gives-up", Description: "retries a failed revision twice as the seed says, then never again: a good configuration is never rolled out once the fault clears (fails the back-off rule, 003 §User Stories 4)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.Seed().Operator, decide: givesUp} })},
	{Name: "clears-degraded-on-retry", Description: "clears Degraded when the retry replaces the fallback, one step before the retried revision is ready (fails the Degraded rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return seedOperatorWith(func(p *sp.OperatorParams) { p.DegradedUntilReady = false })
		})},
	{Name: "degraded-forever", Description: "keeps Degraded=True with the last fallback's message after the retried revision is ready (warns: the Style rule on clearing Degraded)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{params: sp.Seed().Operator, decide: degradedForever} })},
	{Name: "clears-late-past-bound", Description: "clears Degraded a second later than the reaction bound after the failed revision is ready (warns: the Style rule on clearing Degraded)",
		Impl: operatorImpl(func(c Config) operatorCore {
			return operatorCore{params: sp.Seed().Operator, decide: degradedClearedLate(c.Reaction + time.Second)}
		})},
	{Name: "degraded-late-past-bound", Description: "reports a new fallback a second later than the reaction bound after the mirror pod shows it, at its next look (fails the Degraded rule)",
		Impl: operatorImpl(func(c Config) operatorCore {
			return operatorCore{params: sp.Seed().Operator, decide: degradedLate(c.Reaction + time.Second)}
		})},
	{Name: "truncates-termination-message", Description: "cuts the failed revision's termination message to its first 64 bytes in Degraded (fails the termination message rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			return operatorCore{params: sp.Seed().Operator, decide: truncatesTermination}
		})},
}

// Pruner subjects.
var pruners = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Prune: keeps the newest revisions and the last-known-good one",
		Impl: prunerImpl(func(Config) prunerCore { return prunerCore{params: sp.Seed().Pruner, prune: sp.Prune} })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's pruner, which does not know the last-known-good link (fails the pruner rule in the seed profile)",
		Impl: prunerImpl(func(Config) prunerCore { return prunerCore{params: sp.LibraryGo().Pruner, prune: sp.Prune} })},
	{Name: "prunes-last-known-good", Description: "prunes the last-known-good revision with the others (fails the pruner rule)",
		Impl: prunerImpl(func(Config) prunerCore {
			return prunerCore{params: sp.PrunerParams{HonourLastKnownGood: false}, prune: sp.Prune}
		})},
	{Name: "keeps-one-more", Description: "does not read the link: keeps one more revision than asked, taking the previous one for last-known-good (fails the pruner rule)",
		Impl: prunerImpl(func(Config) prunerCore { return prunerCore{params: sp.PrunerParams{}, prune: keepsOneMore} })},
	{Name: "stale-link", Description: "resolves last-known-good once, the first time it finds the link, and never sees it move: it spares the old revision and prunes the newly linked one (fails the pruner rule)",
		Impl: prunerImpl(func(Config) prunerCore { return prunerCore{params: sp.Seed().Pruner, prune: staleLink()} })},
}

// faithfulMonitor is a faithful startup-monitor (it honours the lock
// itself; the world gives it the run's timeout in its view).
func faithfulMonitor(m contract.Monitor) monitorCore {
	return monitorCore{decide: func(_ sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
		return m.Look(v, now)
	}}
}

// faithfulOperator is a faithful operator.
func faithfulOperator(o contract.Operator) operatorCore {
	return operatorCore{decide: func(_ sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
		return o.Look(mem, n, now)
	}}
}

// monitorOf is profile p's monitor deciding with decide, given timeout in
// its view in place of the run's.
func monitorOf(p sp.Profile, timeout time.Duration, decide func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision) monitorCore {
	return monitorCore{params: p.Monitor, decide: func(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
		v.Timeout = timeout
		return decide(p, v, now)
	}}
}

// fallbackOp is the fallback manifest's operation in a decision's ops.
func fallbackOp(d *contract.MonitorDecision) *contract.Op {
	if d.Action != contract.FallBack {
		return nil
	}
	for i := range d.Ops {
		if op := &d.Ops[i]; op.Kind == contract.WriteManifest && op.Pod == contract.Operand {
			return op
		}
	}
	return nil
}

func wrongReason(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if op := fallbackOp(&d); op != nil {
		op.Annotations = maps.Clone(op.Annotations)
		op.Annotations[contract.AnnotationFallbackReason] = string(contract.NotReady)
	}
	return d
}

func noAnnotations(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if op := fallbackOp(&d); op != nil {
		op.Annotations = nil
	}
	return d
}

// eagerLink links last-known-good to its revision at its first look at
// its operand, ready or not.
func eagerLink(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if d.Action == contract.Wait && v.Manifest == v.Revision && v.LastKnownGood != v.Revision && !v.LockHeld {
		d.Ops = []contract.Op{{Kind: contract.TakeLock}, {Kind: contract.LinkLastKnownGood, Revision: v.Revision}, {Kind: contract.ReleaseLock}}
	}
	return d
}

// wrongTarget falls back to the newest revision below the right one, when
// there is one.
func wrongTarget(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	op := fallbackOp(&d)
	if op == nil {
		return d
	}
	below := 0
	for _, r := range v.Revisions {
		if r < op.Revision && r > below {
			below = r
		}
	}
	if below > 0 {
		op.Revision = below
	}
	return d
}

func neverDegraded(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	d := sp.Operate(p, mem, n, now)
	d.Condition.Status, d.Condition.Reason, d.Condition.Message = metav1.ConditionFalse, "AsExpected", ""
	return d
}

func noTerminationMessage(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	n.Termination = ""
	return sp.Operate(p, mem, n, now)
}
