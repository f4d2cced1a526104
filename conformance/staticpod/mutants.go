package staticpod

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/opcert/opcert/conformance/staticpod/contract"
	sp "github.com/opcert/opcert/reference/staticpod"
)

// The cores of the broken subjects added for the self-test (opcert
// selftest): each wraps a reference core from reference/staticpod and
// breaks one requirement of seed 003, the way a real implementation
// could, many of them by one second or one step at a deadline or a phase
// change. subjects.go lists them with the rule each should fail.

// Startup-monitor mutants.

// seedMonitorWith is the seed's monitor with the run's timeout, its
// parameters changed by change, deciding with decide.
func seedMonitorWith(c Config, change func(*sp.MonitorParams), decide func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision) monitorCore {
	mc := monitorOf(sp.Seed(), c.Timeout, decide)
	change(&mc.params)
	return mc
}

// timerFromStart runs the timeout from the monitor process's first look,
// as library-go's monitor does, not from the first look at its revision's
// operand manifest: a monitor that waited while another revision ran
// (003 §Upgrade / Downgrade Strategy) has used up its timeout by the time
// its revision is rolled out.
func timerFromStart(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	if v.Since.IsZero() {
		v.Since = now
	}
	d := sp.Monitor(p, v, now)
	if d.Since.IsZero() {
		d.Since = v.Since // not reset by another revision's manifest
	}
	return d
}

// crashLoopAtOneSteps is the seed's readiness procedure with step 2 off by
// one: a single start-up attempt, the operand not up, already counts as
// CrashLooping ("more than one" read as "at least one").
func crashLoopAtOneSteps() []sp.Step {
	steps := sp.SeedSteps() // step 1 (NeverStartedUp), step 2 (CrashLooping), then the up steps
	up := slices.Clone(steps[2:])
	steps[1] = func(revision int, o contract.Observation) (contract.Reason, string) {
		if r, _ := sp.Verdict(up, revision, o); o.StartAttempts >= 1 && r != "" {
			return contract.CrashLooping, fmt.Sprintf("%d start-up attempts in the termination log", o.StartAttempts)
		}
		return "", ""
	}
	return steps
}

// healthzIsReadySteps stops the readiness procedure after step 3: an
// operand whose /healthz is green counts as ready, one step before /readyz
// and the mirror pod say so.
func healthzIsReadySteps() []sp.Step { return sp.SeedSteps()[:3] }

// withFallbackAnnotations lets change rewrite a fallback's annotations.
func withFallbackAnnotations(change func(op *contract.Op, ann map[string]string)) func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision {
	return func(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
		d := sp.Monitor(p, v, now)
		if op := fallbackOp(&d); op != nil {
			op.Annotations = maps.Clone(op.Annotations)
			change(op, op.Annotations)
		}
		return d
	}
}

// noHooksInMessage drops the unfinished post-start hooks from a /readyz
// fallback's message.
var noHooksInMessage = withFallbackAnnotations(func(_ *contract.Op, ann map[string]string) {
	msg := ann[contract.AnnotationFallbackMessage]
	if i := strings.Index(msg, "; unfinished post-start hooks:"); i >= 0 {
		ann[contract.AnnotationFallbackMessage] = msg[:i]
	}
})

// noFallbackMessage leaves out the human-readable fallback-message
// annotation.
var noFallbackMessage = withFallbackAnnotations(func(_ *contract.Op, ann map[string]string) {
	delete(ann, contract.AnnotationFallbackMessage)
})

// forTargetRevision writes the revision fallen back to in
// fallback-for-revision, instead of the failed one.
var forTargetRevision = withFallbackAnnotations(func(op *contract.Op, ann map[string]string) {
	ann[contract.AnnotationFallbackForRevision] = strconv.Itoa(op.Revision)
})

// linksFailedRevision links last-known-good to its revision when it falls
// back too, as it does when the operand is ready: it links on every exit.
func linksFailedRevision(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if d.Action != contract.FallBack {
		return d
	}
	for i, op := range d.Ops {
		if op.Kind == contract.RemoveManifest && op.Pod == contract.StartupMonitor {
			d.Ops = slices.Insert(slices.Clone(d.Ops), i, contract.Op{Kind: contract.LinkLastKnownGood, Revision: v.Revision})
			break
		}
	}
	return d
}

// ignoresLastKnownGood falls back to the previous revision, as before the
// link existed, whatever last-known-good points at.
func ignoresLastKnownGood(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	v.LastKnownGood = 0
	return sp.Monitor(p, v, now)
}

// fallsBackInBootstrap, with nothing to fall back to (no last-known-good
// other than itself, no revision below its own), "falls back" to its own
// revision at the timeout, annotations and all, instead of doing nothing.
func fallsBackInBootstrap(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if d.Action != contract.Wait || d.Reason == "" || d.Since.IsZero() || now.Before(d.Since.Add(v.Timeout)) {
		return d // ready, falling back, not due, or waiting for the lock or its manifest
	}
	d.Action, d.Next = contract.FallBack, time.Time{}
	d.Ops = []contract.Op{
		{Kind: contract.WriteManifest, Pod: contract.Operand, Revision: v.Revision, Annotations: map[string]string{
			contract.AnnotationFallbackForRevision: strconv.Itoa(v.Revision),
			contract.AnnotationFallbackReason:      string(d.Reason),
			contract.AnnotationFallbackMessage:     fmt.Sprintf("Revision %d did not become ready within %v: %s", v.Revision, v.Timeout, d.Message),
		}},
		{Kind: contract.RemoveManifest, Pod: contract.StartupMonitor, Revision: v.Revision},
	}
	if p.HonourLock {
		d.Ops = append(append([]contract.Op{{Kind: contract.TakeLock}}, d.Ops...), contract.Op{Kind: contract.ReleaseLock})
	}
	return d
}

// lockCheckThenWrite takes the installer lock only to see that it is free
// and releases it at once, then writes without it (check, then act).
func lockCheckThenWrite(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if n := len(d.Ops); n > 2 && d.Ops[0].Kind == contract.TakeLock && d.Ops[n-1].Kind == contract.ReleaseLock {
		d.Ops = append([]contract.Op{d.Ops[0], d.Ops[n-1]}, d.Ops[1:n-1]...)
	}
	return d
}

// Mutants of 003 §Proposal step 2: what the monitor owes once its
// operand is ready (link last-known-good to its revision, then remove its
// own manifest), each changing the reference's ready decision.

// onReady rewrites the operations of the reference's ready decisions.
func onReady(change func(ops []contract.Op) []contract.Op) func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision {
	return func(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
		d := sp.Monitor(p, v, now)
		if d.Action == contract.Ready {
			d.Ops = change(slices.Clone(d.Ops))
		}
		return d
	}
}

func isLink(op contract.Op) bool { return op.Kind == contract.LinkLastKnownGood }

func isOwnRemoval(op contract.Op) bool {
	return op.Kind == contract.RemoveManifest && op.Pod == contract.StartupMonitor
}

// neverLinks removes its manifest once its operand is ready without
// linking last-known-good: the link stays on the revision before.
var neverLinks = onReady(func(ops []contract.Op) []contract.Op { return slices.DeleteFunc(ops, isLink) })

// keepsManifest links last-known-good once its operand is ready but never
// removes its own manifest: it keeps running, linking again at each look.
var keepsManifest = onReady(func(ops []contract.Op) []contract.Op { return slices.DeleteFunc(ops, isOwnRemoval) })

// removesBeforeLinking removes its own manifest first, then links
// last-known-good: the same end on the node, in the order the seed does
// not allow (a kubelet stops a monitor whose manifest is gone, so the link
// may never come).
var removesBeforeLinking = onReady(func(ops []contract.Op) []contract.Op {
	l, r := slices.IndexFunc(ops, isLink), slices.IndexFunc(ops, isOwnRemoval)
	if l >= 0 && r > l {
		ops[l], ops[r] = ops[r], ops[l]
	}
	return ops
})

// readyLate acts on its operand's readiness only at a look delay after
// the first one that found it ready (it waits for the readiness to be
// "stable"), the operand still ready then. It remembers, per mirror pod
// (its UID), its first look that found it ready; a look that finds it not
// ready forgets. One per run: its memory is the run's.
func readyLate(delay time.Duration) func(sp.MonitorParams, contract.MonitorView, time.Time) contract.MonitorDecision {
	var mu sync.Mutex
	first := map[string]time.Time{}
	return func(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
		d := sp.Monitor(p, v, now)
		m := v.Operand.Mirror
		if m == nil {
			return d
		}
		mu.Lock()
		defer mu.Unlock()
		if d.Action != contract.Ready {
			delete(first, m.UID)
			return d
		}
		t, ok := first[m.UID]
		if !ok {
			t, first[m.UID] = now, now
		}
		if due := t.Add(delay); now.Before(due) {
			d.Action, d.Ops, d.Next = contract.Wait, nil, due
		}
		return d
	}
}

// Operator mutants.

// seedOperatorWith is the seed's operator, its parameters changed by
// change.
func seedOperatorWith(change func(*sp.OperatorParams)) operatorCore {
	p := sp.Seed().Operator
	change(&p)
	return operatorCore{params: p, decide: sp.Operate}
}

// degradedLate reports a new fallback only delay after it first sees it
// (it waits for the fallback to be "stable"): until then, whatever wakes
// it, the condition stays as it was. It remembers, per fallback mirror pod
// (its UID), when it first saw it (one per run).
func degradedLate(delay time.Duration) func(sp.OperatorParams, *contract.Fallback, contract.Node, time.Time) contract.OperatorDecision {
	var mu sync.Mutex
	first := map[string]time.Time{}
	return func(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
		d := sp.Operate(p, mem, n, now)
		if d.Memory == nil || d.Memory.UID == "" || n.Mirror == nil || n.Mirror.UID != d.Memory.UID {
			return d
		}
		mu.Lock()
		defer mu.Unlock()
		t, ok := first[d.Memory.UID]
		if !ok {
			t, first[d.Memory.UID] = now, now
		}
		if due := t.Add(delay); now.Before(due) {
			d.Condition = contract.Condition{Type: p.ConditionType, Status: metav1.ConditionFalse, Reason: "AsExpected"}
			if mem != nil && mem.UID != d.Memory.UID && p.DegradedUntilReady {
				d.Condition = contract.Condition{Type: p.ConditionType, Status: metav1.ConditionTrue, Reason: string(mem.Reason), Message: p.Describe(*mem)}
			}
			d.Next = due
		}
		return d
	}
}

// degradedForever never lets go of a fallback: once one is over (a later
// revision ready), it keeps its memory and Degraded=True as it was.
func degradedForever(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	d := sp.Operate(p, mem, n, now)
	if d.Memory == nil && mem != nil {
		d.Memory = mem
		d.Condition = contract.Condition{Type: p.ConditionType, Status: metav1.ConditionTrue, Reason: string(mem.Reason), Message: p.Describe(*mem)}
	}
	return d
}

// degradedClearedLate clears Degraded only delay after its first look
// that finds the fallback over (a later revision ready): until then it
// keeps its memory and the condition as they were. It remembers, per
// fallback mirror pod (its UID), when it first found it over (one per run).
func degradedClearedLate(delay time.Duration) func(sp.OperatorParams, *contract.Fallback, contract.Node, time.Time) contract.OperatorDecision {
	var mu sync.Mutex
	over := map[string]time.Time{}
	return func(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
		d := sp.Operate(p, mem, n, now)
		if d.Memory != nil || mem == nil {
			return d
		}
		mu.Lock()
		defer mu.Unlock()
		t, ok := over[mem.UID]
		if !ok {
			t, over[mem.UID] = now, now
		}
		if due := t.Add(delay); now.Before(due) {
			d.Memory, d.Next = mem, due
			d.Condition = contract.Condition{Type: p.ConditionType, Status: metav1.ConditionTrue, Reason: string(mem.Reason), Message: p.Describe(*mem)}
		}
		return d
	}
}

// retriesOf is how many retries of the failed revision the operator will
// have asked before the one it decides on now: its memory's, one more once
// its memory's fallback was retried (Operate's count at a new fallback).
func retriesOf(mem *contract.Fallback) int {
	if mem == nil {
		return 0
	}
	if mem.Retried {
		return mem.Retries + 1
	}
	return mem.Retries
}

// backoffShrinks waits 40m before the first retry and half as long before
// each next one, no less than the seed's 10m.
func backoffShrinks(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	wait := max(40*time.Minute>>min(retriesOf(mem), 2), 10*time.Minute)
	p.Backoff = sp.Backoff{First: wait, Max: wait}
	return sp.Operate(p, mem, n, now)
}

// givenUpAfter is how many retries givesUp asks before it stops.
const givenUpAfter = 2

// givesUp retries as the seed says until it has retried a revision twice,
// then treats every later fallback of it as one never to retry.
func givesUp(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	if mem != nil && retriesOf(mem) >= givenUpAfter {
		p.NoRetry = append(slices.Clip(p.NoRetry), mem.Reason)
	}
	return sp.Operate(p, mem, n, now)
}

// retryWithoutOperand installs a revision asked again (a retry) as it
// installed it the first time but for the operand's manifest: the
// resources and the startup-monitor's manifest only, so the fallback keeps
// running (one per run: its memory is the run's).
func retryWithoutOperand() func(sp.InstallerParams, int, bool) []contract.Op {
	var mu sync.Mutex
	done := map[int]bool{}
	return func(p sp.InstallerParams, revision int, held bool) []contract.Op {
		mu.Lock()
		defer mu.Unlock()
		ops := sp.Install(p, revision, held)
		if !done[revision] {
			done[revision] = ops != nil
			return ops
		}
		return slices.DeleteFunc(ops, func(op contract.Op) bool { return op.Kind == contract.WriteManifest && op.Pod == contract.Operand })
	}
}

// skipsReinstall installs a revision only the first time it is asked: the
// second ask finds its files from the first trial and does nothing (one
// per run: its memory is the run's).
func skipsReinstall() func(sp.InstallerParams, int, bool) []contract.Op {
	var mu sync.Mutex
	done := map[int]bool{}
	return func(p sp.InstallerParams, revision int, held bool) []contract.Op {
		mu.Lock()
		defer mu.Unlock()
		if done[revision] {
			return nil
		}
		ops := sp.Install(p, revision, held)
		done[revision] = ops != nil
		return ops
	}
}

// truncatedTermination is how much of a termination message
// truncatesTermination keeps.
const truncatedTermination = 64

// truncatesTermination cuts the termination message to its first 64 bytes
// before it reaches the condition.
func truncatesTermination(p sp.OperatorParams, mem *contract.Fallback, n contract.Node, now time.Time) contract.OperatorDecision {
	if len(n.Termination) > truncatedTermination {
		n.Termination = n.Termination[:truncatedTermination]
	}
	return sp.Operate(p, mem, n, now)
}

// timerBeforeReadiness looks at its timer before it refreshes its view of
// the operand: at the deadline it falls back on what its previous look
// saw (the mirror pod not ready yet), even when the operand has become
// ready at that very instant.
func timerBeforeReadiness(p sp.MonitorParams, v contract.MonitorView, now time.Time) contract.MonitorDecision {
	d := sp.Monitor(p, v, now)
	if d.Action != contract.Ready || now.Before(d.Since.Add(v.Timeout)) {
		return d
	}
	v.Since = d.Since
	if m := v.Operand.Mirror; m != nil {
		previous := *m
		previous.Ready = false
		v.Operand.Mirror = &previous
	}
	return sp.Monitor(p, v, now)
}

// Installer mutants.

// locksLate takes the installer lock only to write the operand manifest:
// the resources and the startup-monitor manifest go first, whoever holds
// the lock. When the lock turns out to be held, the plan is dropped at the
// TakeLock and starts again once it is released.
func locksLate(p sp.InstallerParams, revision int, _ bool) []contract.Op {
	ops := sp.Install(p, revision, false)
	if len(ops) == 0 || ops[0].Kind != contract.TakeLock {
		return ops
	}
	for i, op := range ops {
		if op.Kind == contract.WriteManifest && op.Pod == contract.Operand {
			return slices.Concat(ops[1:i], ops[:1], ops[i:])
		}
	}
	return ops
}

// Pruner mutants.

// keepsOneMore does not read the last-known-good link: it keeps one more
// revision than asked, on the belief that last-known-good is the
// revision before the newest.
func keepsOneMore(p sp.PrunerParams, revisions []int, keep, _ int) []int {
	return sp.Prune(p, revisions, keep+1, 0)
}

// staleLink resolves last-known-good once, at its first look that finds
// the link, and keeps to it after the link moves.
func staleLink() func(sp.PrunerParams, []int, int, int) []int {
	var mu sync.Mutex
	resolved := 0
	return func(p sp.PrunerParams, revisions []int, keep, lastKnownGood int) []int {
		mu.Lock()
		if resolved == 0 {
			resolved = lastKnownGood
		}
		lkg := resolved
		mu.Unlock()
		return sp.Prune(p, revisions, keep, lkg)
	}
}
