package staticpod

import (
	"maps"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance"
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

// monitorImpl makes a startup-monitor subject's parameters and decision
// core from the run's settings.
type monitorImpl func(Config) monitorCore

type monitorCore struct {
	params sp.MonitorParams
	decide func(sp.MonitorParams, sp.MonitorView, time.Time) sp.MonitorDecision
}

// installerImpl makes an installer subject's parameters.
type installerImpl func(Config) sp.InstallerParams

// operatorImpl makes an operator subject's parameters and decision core.
type operatorImpl func(Config) operatorCore

type operatorCore struct {
	params sp.OperatorParams
	decide func(sp.OperatorParams, *sp.Fallback, sp.Node, time.Time) sp.OperatorDecision
}

// prunerImpl makes a pruner subject's parameters.
type prunerImpl func(Config) sp.PrunerParams

// Startup-monitor subjects: the reference, library-go's, and variants
// broken on purpose, each breaking one requirement of the seed.
var monitors = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Monitor, seed profile, with the run's timeout",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.Seed(), c.Timeout, sp.Monitor) })},
	{Name: "library-go", Profile: "library-go", Description: "reference/staticpod's Monitor, library-go profile (its checks, order and reasons)",
		Impl: monitorImpl(func(c Config) monitorCore { return monitorOf(sp.LibraryGo(), c.Timeout, sp.Monitor) })},
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
}

// Installer subjects.
var installers = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Install: takes the installer lock, waits while it is held",
		Impl: installerImpl(func(Config) sp.InstallerParams { return sp.Seed().Installer })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's installer (takes the lock as the seed does)",
		Impl: installerImpl(func(Config) sp.InstallerParams { return sp.LibraryGo().Installer })},
	{Name: "ignores-lock", Description: "writes without taking or honouring the installer lock (fails the lock rule)",
		Impl: installerImpl(func(Config) sp.InstallerParams { return sp.InstallerParams{} })},
}

// Operator subjects.
var operators = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Operate, seed profile: retries after 10m doubling to 6h, never after CrashLooping or NeverStartedUp, Degraded until ready",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{sp.Seed().Operator, sp.Operate} })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's operator: first retry after 20m, capped at 2h, every reason retried, StaticPodFallbackRevisionDegraded",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{sp.LibraryGo().Operator, sp.Operate} })},
	{Name: "retries-crashloop", Description: "retries after CrashLooping and NeverStartedUp too (fails the no-retry rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			p := sp.Seed().Operator
			p.NoRetry = nil
			return operatorCore{p, sp.Operate}
		})},
	{Name: "hasty-retry", Description: "retries a failed revision 5m after the fallback instead of 10m (fails the back-off rule)",
		Impl: operatorImpl(func(Config) operatorCore {
			p := sp.Seed().Operator
			p.Backoff.First = 5 * time.Minute
			return operatorCore{p, sp.Operate}
		})},
	{Name: "no-termination-message", Description: "reports Degraded with the fallback message but drops the failed revision's termination message (fails the termination message rule)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{sp.Seed().Operator, noTerminationMessage} })},
	{Name: "never-degraded", Description: "retries as the seed says but never reports Degraded (fails the Degraded rule)",
		Impl: operatorImpl(func(Config) operatorCore { return operatorCore{sp.Seed().Operator, neverDegraded} })},
}

// Pruner subjects.
var pruners = []conformance.Subject{
	{Name: "reference", Description: "reference/staticpod's Prune: keeps the newest revisions and the last-known-good one",
		Impl: prunerImpl(func(Config) sp.PrunerParams { return sp.Seed().Pruner })},
	{Name: "library-go", Profile: "library-go", Description: "library-go's pruner, which does not know the last-known-good link (fails the pruner rule in the seed profile)",
		Impl: prunerImpl(func(Config) sp.PrunerParams { return sp.LibraryGo().Pruner })},
	{Name: "prunes-last-known-good", Description: "prunes the last-known-good revision with the others (fails the pruner rule)",
		Impl: prunerImpl(func(Config) sp.PrunerParams { return sp.PrunerParams{HonourLastKnownGood: false} })},
}

func monitorOf(p sp.Profile, timeout time.Duration, decide func(sp.MonitorParams, sp.MonitorView, time.Time) sp.MonitorDecision) monitorCore {
	p.Monitor.Timeout = timeout
	return monitorCore{params: p.Monitor, decide: decide}
}

// fallbackOp is the fallback manifest's operation in a decision's ops.
func fallbackOp(d *sp.MonitorDecision) *sp.Op {
	if d.Action != sp.FallBack {
		return nil
	}
	for i := range d.Ops {
		if op := &d.Ops[i]; op.Kind == sp.WriteManifest && op.Pod == sp.Operand {
			return op
		}
	}
	return nil
}

func wrongReason(p sp.MonitorParams, v sp.MonitorView, now time.Time) sp.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if op := fallbackOp(&d); op != nil {
		op.Annotations = maps.Clone(op.Annotations)
		op.Annotations[sp.AnnotationFallbackReason] = string(sp.NotReady)
	}
	return d
}

func noAnnotations(p sp.MonitorParams, v sp.MonitorView, now time.Time) sp.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if op := fallbackOp(&d); op != nil {
		op.Annotations = nil
	}
	return d
}

// eagerLink links last-known-good to its revision at its first look at
// its operand, ready or not.
func eagerLink(p sp.MonitorParams, v sp.MonitorView, now time.Time) sp.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if d.Action == sp.Wait && v.Manifest == v.Revision && v.LastKnownGood != v.Revision && !v.LockHeld {
		d.Ops = []sp.Op{{Kind: sp.TakeLock}, {Kind: sp.LinkLastKnownGood, Revision: v.Revision}, {Kind: sp.ReleaseLock}}
	}
	return d
}

// wrongTarget falls back to the newest revision below the right one, when
// there is one.
func wrongTarget(p sp.MonitorParams, v sp.MonitorView, now time.Time) sp.MonitorDecision {
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

func neverDegraded(p sp.OperatorParams, mem *sp.Fallback, n sp.Node, now time.Time) sp.OperatorDecision {
	d := sp.Operate(p, mem, n, now)
	d.Condition.Status, d.Condition.Reason, d.Condition.Message = metav1.ConditionFalse, "AsExpected", ""
	return d
}

func noTerminationMessage(p sp.OperatorParams, mem *sp.Fallback, n sp.Node, now time.Time) sp.OperatorDecision {
	n.Termination = ""
	return sp.Operate(p, mem, n, now)
}
