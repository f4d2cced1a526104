package staticpod

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/node"
)

// draw makes a random staticpod scenario for `opcert fuzz` (Kind.Draw): a
// World of 1 to 3 nodes and a handful of revisions, mostly healthy, some
// failing each of sim/node's ways, something installed (or a bootstrap);
// and a time-ordered list of steps: rollouts to ever newer revisions and
// faults of every process (kill, restart, hang, reconnect) and of etcd,
// each fault usually, not always, undone later.
//
// Everything comes from r. Every step is valid on its own (validation
// refers steps only to the World: nodes, the operator's name, declared
// revisions), so a shrinker may remove or move any of them. Sizes are
// bounded so that a 24-hour scenario runs in seconds: at most
// drawMaxRollouts rollouts and drawMaxFaults faults (about one an hour, at
// least one on average), so at most drawMaxRollouts+2*drawMaxFaults steps.
func draw(r *rand.Rand, d time.Duration) (any, []scenarios.Step) {
	w := drawWorld(r)
	if d <= 0 {
		return w, nil
	}
	g := &drawer{r: r, d: d, w: w}
	g.rollouts()
	g.faults()
	slices.SortStableFunc(g.steps, func(a, b scenarios.Step) int { return cmp.Compare(a.Time, b.Time) })
	return w, g.steps
}

// Bounds of a drawn scenario.
const (
	drawMaxNodes     = 3
	drawMaxRevisions = 6
	drawMaxRollouts  = 5
	drawMaxFaults    = 16
	// drawFaultEvery is the mean time between faults, for scenarios
	// longer than it (a shorter one still gets one on average).
	drawFaultEvery = time.Hour
	// drawSettle is the earliest a drawn step comes (when the duration
	// allows it), but a bootstrap's first rollout: the world's start at
	// time 0 (the installed operand shown ready, last-known-good linked)
	// is not disturbed by a step that runs before it at the same instant.
	drawSettle = 30 * time.Second
)

// drawFailing are the models of a revision that never gets ready, or not
// in time (sim/node's Kinds but Healthy and EtcdDownThenBack).
var drawFailing = []node.Kind{node.InvalidManifest, node.BadConfig, node.PortWaitTimeout,
	node.ConnectionRefused, node.Unhealthy, node.NotReady, node.EtcdHookStuck}

var drawHooks = []string{"start-apiextensions-controllers", "rbac/bootstrap-roles",
	"start-kube-apiserver-admission-initializer", "crd-informer-synced",
	"start-service-ip-repair-controllers"}

var drawMessages = map[node.Kind][]string{
	node.BadConfig: {
		"Error: unknown flag: --bar",
		`Error: loading audit policy file: unknown audit level "Everything"`,
		"Error: invalid argument \"x\" for \"--max-requests-inflight\" flag: strconv.ParseInt: parsing \"x\": invalid syntax",
		"E0101 00:00:00.000000 1 run.go:72] \"command failed\" err=\"open /etc/kubernetes/static-pod-resources/secrets/serving-cert/tls.crt: no such file or directory\"",
	},
	node.PortWaitTimeout: {
		"timed out waiting for port :6443 and :6080 to be released",
		"port 6443 still in use after 10 tries",
	},
}

func drawWorld(r *rand.Rand) *World {
	w := &World{}
	// One node is left to the default (nil) two times in three.
	if n := drawNodes(r); n > 1 || r.IntN(3) == 0 {
		for i := range n {
			w.Nodes = append(w.Nodes, fmt.Sprintf("master-%d", i))
		}
	}
	base := 1
	if r.IntN(4) == 0 {
		base = 2 + r.IntN(20)
	}
	n := 2 + r.IntN(drawMaxRevisions-1)
	for i := range n {
		w.Revisions = append(w.Revisions, drawRevision(r, base+i))
	}
	// Something installed (a revision that was ready: healthy, or etcd
	// slow only at its start an hour ago), one or two from the oldest so
	// that newer revisions are left to roll out; or a bootstrap.
	if r.IntN(8) != 0 {
		i := 0
		if k := r.IntN(6); k >= 4 {
			i = min(k-3, n-1)
		}
		w.Installed = base + i
		if k := node.Kind(w.Revisions[i].Operand); k != node.Healthy && k != node.EtcdDownThenBack {
			w.Revisions[i] = Revision{Revision: base + i, Operand: string(node.Healthy)}
		}
		switch r.IntN(10) {
		case 0, 1: // an upgrade from a version without the fallback
			f := false
			w.LastKnownGood = &f
		case 2:
			t := true
			w.LastKnownGood = &t
		}
		if i+1 < n && r.IntN(10) == 0 {
			// a downgrade left a newer revision's startup-monitor
			w.LeftoverMonitor = base + i + 1 + r.IntN(n-i-1)
		}
	}
	if r.IntN(4) == 0 {
		w.Keep = 1 + r.IntN(6)
	}
	if r.IntN(7) == 0 {
		wt := &WriteTime{}
		for wt.Installer.Duration == 0 && wt.StartupMonitor.Duration == 0 {
			if r.IntN(2) == 0 {
				wt.Installer.Duration = seconds(r, 1, 15)
			}
			if r.IntN(2) == 0 {
				wt.StartupMonitor.Duration = seconds(r, 1, 15)
			}
		}
		w.WriteTime = wt
	}
	return w
}

func drawNodes(r *rand.Rand) int {
	switch r.IntN(5) {
	case 0:
		return 2
	case 1:
		return drawMaxNodes
	}
	return 1
}

// drawRevision is revision rev with a model: healthy half the time (some
// slow to start or to get ready, a few slower than the timeout), etcd slow
// at its start now and then, else one of the failing models, some with
// their parameters or termination message.
func drawRevision(r *rand.Rand, rev int) Revision {
	v := Revision{Revision: rev}
	dur := func(lo, hi int) *scenarios.Duration { return &scenarios.Duration{Duration: seconds(r, lo, hi)} }
	switch p := r.IntN(20); {
	case p < 10:
		v.Operand = string(node.Healthy)
		switch q := r.IntN(20); {
		case q < 5:
			v.ReadyAfter = dur(1, 240)
		case q == 5:
			v.ReadyAfter = dur(300, 480) // never ready within the 5m timeout
		}
		if r.IntN(8) == 0 {
			v.StartDelay = dur(1, 90)
		}
		return v
	case p == 10:
		v.Operand = string(node.EtcdDownThenBack)
		if r.IntN(2) == 0 {
			v.EtcdDownFor = dur(10, 480)
		}
		return v
	}
	k := drawFailing[r.IntN(len(drawFailing))]
	v.Operand = string(k)
	switch k {
	case node.BadConfig:
		if r.IntN(2) == 0 {
			v.CrashAfter = dur(1, 30)
		}
	case node.PortWaitTimeout:
		if r.IntN(2) == 0 {
			v.PortWait = dur(1, 60)
		}
	case node.NotReady:
		if r.IntN(2) == 0 {
			v.Hook = drawHooks[r.IntN(len(drawHooks))]
		}
	}
	if m := drawMessages[k]; len(m) > 0 && r.IntN(3) == 0 {
		v.Message = m[r.IntN(len(m))]
	}
	if k != node.InvalidManifest && r.IntN(10) == 0 {
		v.StartDelay = dur(1, 60)
	}
	return v
}

// seconds is a whole number of seconds in [lo, hi].
func seconds(r *rand.Rand, lo, hi int) time.Duration {
	return time.Duration(lo+r.IntN(hi-lo+1)) * time.Second
}

type drawer struct {
	r        *rand.Rand
	d        time.Duration
	w        *World
	steps    []scenarios.Step
	rolledAt []time.Duration // the rollouts' times, for faults near them
}

func (g *drawer) add(t time.Duration, action string, arg any) {
	g.steps = append(g.steps, scenarios.Step{Time: t, Action: action, Arg: arg})
}

// within is a whole-second time in [lo, hi], clamped to the steps' span
// [drawSettle, duration) (all at 0 for a duration of a second or less).
func (g *drawer) within(lo, hi time.Duration) time.Duration {
	first := min(drawSettle, g.d/2)
	last := g.d - time.Second
	lo, hi = max(lo, first), min(hi, last)
	if hi <= lo {
		return max(min(lo, last), 0).Truncate(time.Second)
	}
	return (lo + time.Duration(g.r.Int64N(int64(hi-lo)+1))).Truncate(time.Second)
}

// rollouts draws up to drawMaxRollouts rollouts, each to a newer revision
// than the one before (the operator makes a new revision for every
// change), at times spread over the duration; a bootstrap rolls out its
// first revision in the first minutes, the time 0 of the seed's example
// included.
func (g *drawer) rollouts() {
	var newer []int
	for _, v := range g.w.Revisions {
		if v.Revision > g.w.Installed {
			newer = append(newer, v.Revision)
		}
	}
	n := 0
	if g.r.IntN(10) != 0 { // else none: faults on a world at rest
		n = 1 + g.poisson(float64(g.d)/float64(8*time.Hour))
	}
	n = min(n, len(newer), drawMaxRollouts)
	if n == 0 {
		return
	}
	// Which newer revisions: n of them, in order, skipping some.
	pick := g.r.Perm(len(newer))[:n]
	slices.Sort(pick)
	times := make([]time.Duration, n)
	for i := range times {
		times[i] = g.within(0, g.d)
	}
	slices.Sort(times)
	if g.w.Installed == 0 {
		if g.r.IntN(3) == 0 {
			times[0] = 0
		} else {
			times[0] = min(times[0], g.within(0, 5*time.Minute))
		}
	}
	for i, t := range times {
		g.add(t, actRollout, &Rollout{Revision: newer[pick[i]]})
	}
	g.rolledAt = times
}

// poisson draws from a Poisson distribution of mean m (Knuth's method; m
// stays small here).
func (g *drawer) poisson(m float64) int {
	l, k, p := math.Exp(-min(m, 50)), 0, 1.0
	for {
		p *= g.r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// A fault: what goes wrong, and what undoes it.
type drawFault struct {
	weight      int
	fault, undo string
	node        bool // the argument is a node, else the operator
	etcd        bool // the argument is etcd's state
}

var drawFaults = []drawFault{
	{weight: 20, fault: actKillMonitor, undo: actRestartMonitor, node: true},
	{weight: 12, fault: actKillInstaller, undo: actRestartInstaller, node: true},
	{weight: 10, fault: actKillPruner, undo: actRestartPruner, node: true},
	{weight: 15, fault: actKillOperator, undo: actRestartOperator},
	{weight: 15, fault: actHangOperator, undo: actReconnect},
	{weight: 13, fault: actEtcd, undo: actEtcd, etcd: true},
}

// faults draws about one fault an hour (Poisson, mean at least one, at
// most drawMaxFaults), half of them near a rollout (where the mechanism
// is at work), half anywhere; most are undone after a downtime (short,
// medium or long), some never, and now and then only the undo comes (a
// restart of a running process, a reconnect of a connected operator,
// etcd back while up): each on its own is harmless and valid.
func (g *drawer) faults() {
	m := max(float64(g.d)/float64(drawFaultEvery), 1)
	n := min(g.poisson(m), drawMaxFaults)
	total := 0
	for _, f := range drawFaults {
		total += f.weight
	}
	nodes := g.w.NodeNames()
	for range n {
		k := g.r.IntN(total)
		var f drawFault
		for _, f = range drawFaults {
			if k < f.weight {
				break
			}
			k -= f.weight
		}
		arg := func(down bool) any {
			switch {
			case f.etcd:
				return &Etcd{Down: down}
			case f.node:
				return nodes[g.r.IntN(len(nodes))]
			}
			return operandName
		}
		var t time.Duration
		if len(g.rolledAt) > 0 && g.r.IntN(2) == 0 {
			at := g.rolledAt[g.r.IntN(len(g.rolledAt))]
			t = g.within(at-30*time.Second, at+15*time.Minute)
		} else {
			t = g.within(0, g.d)
		}
		a := arg(true)
		switch p := g.r.IntN(20); {
		case p == 0: // the undo alone
			if f.node {
				a = nodes[g.r.IntN(len(nodes))]
			}
			g.add(t, f.undo, undoArg(f, a))
			continue
		case p < 3: // never undone
			g.add(t, f.fault, a)
			continue
		}
		g.add(t, f.fault, a)
		var down time.Duration
		switch p := g.r.IntN(20); {
		case p < 10:
			down = seconds(g.r, 5, 120)
		case p < 17:
			down = seconds(g.r, 120, 900)
		default:
			down = seconds(g.r, 900, 3600)
		}
		if u := t + down; u < g.d {
			g.add(u, f.undo, undoArg(f, a))
		}
	}
}

// undoArg is the argument of f's undo: the same process, or etcd back.
func undoArg(f drawFault, a any) any {
	if f.etcd {
		return &Etcd{Down: false}
	}
	return a
}
