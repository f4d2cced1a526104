package staticpod

import (
	"embed"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/node"
)

// Seed 003's part of the scenario format: the nodes, the operand's
// revisions and how each behaves once the kubelet runs it, what is on the
// nodes at time 0, and the actions on the processes, the rollout target and
// etcd.

// World is what a staticpod scenario declares beside the shared fields.
type World struct {
	// Nodes are the control-plane nodes, each with the seed's file system,
	// kubelet, operand, startup-monitor, installer and pruner. Default: one,
	// "master-0" (single-node OpenShift, the seed's case).
	Nodes []string `yaml:"nodes,omitempty"`
	// Revisions are the operand's revisions the scenario uses, each with
	// the behaviour of its operand.
	Revisions []Revision `yaml:"revisions"`
	// Installed is the revision running at time 0, as it has for an hour:
	// every declared revision up to it has its resource directory on the
	// nodes, and its manifest is in place. 0: none (bootstrap; roll one out
	// with a rollout step).
	Installed int `yaml:"installed,omitempty"`
	// LastKnownGood says whether last-known-good points at the installed
	// revision at the start (default true when one is installed); false is
	// an upgrade from a version without the fallback (003 §Upgrade /
	// Downgrade Strategy). The link is made at time 0 once the node shows
	// the installed operand ready, which it must be.
	LastKnownGood *bool `yaml:"lastKnownGood,omitempty"`
	// LeftoverMonitor, if set, is the revision of a startup-monitor
	// manifest left on the nodes at time 0 (a downgrade, 003 §Upgrade /
	// Downgrade Strategy). Its resource directory is there too.
	LeftoverMonitor int `yaml:"leftoverMonitor,omitempty"`
	// Keep is how many of the newest revisions the pruner keeps (default 5).
	Keep int `yaml:"keep,omitempty"`
	// WriteTime is how long copying a revision's files or a manifest takes
	// each role (default 0: at once). The installer lock is held meanwhile.
	WriteTime *WriteTime `yaml:"writeTime,omitempty"`
}

// Revision is one revision of the operand and how its operand behaves
// (sim/node's models). Zero durations take the model's defaults.
type Revision struct {
	// Revision is its number, more than 0.
	Revision int `yaml:"revision"`
	// Operand is the model: healthy, invalidManifest, badConfig,
	// portWaitTimeout, connectionRefused, unhealthy, notReady,
	// etcdHookStuck, etcdDownThenBack.
	Operand string `yaml:"operand"`
	// StartDelay is the time from the manifest's appearance to the
	// operand's first start (default 0).
	StartDelay *scenarios.Duration `yaml:"startDelay,omitempty"`
	// ReadyAfter is the time from a start to its post-start hooks
	// finishing (default 30s).
	ReadyAfter *scenarios.Duration `yaml:"readyAfter,omitempty"`
	// CrashAfter is how long each start of a badConfig operand lives
	// (default 1s).
	CrashAfter *scenarios.Duration `yaml:"crashAfter,omitempty"`
	// PortWait is how long each start of a portWaitTimeout operand waits
	// for its port (default 10s).
	PortWait *scenarios.Duration `yaml:"portWait,omitempty"`
	// EtcdDownFor is how long an etcdDownThenBack operand cannot reach
	// etcd after its start (default 2m).
	EtcdDownFor *scenarios.Duration `yaml:"etcdDownFor,omitempty"`
	// Hook is the post-start hook a notReady operand never finishes.
	Hook string `yaml:"hook,omitempty"`
	// Message is the termination message each start of a badConfig or
	// portWaitTimeout operand prints before it exits (default: the
	// model's, sim/node.DefaultTermination), one line.
	Message string `yaml:"message,omitempty"`
}

// WriteTime is how long each write of the installer and of the
// startup-monitor takes.
type WriteTime struct {
	// Installer is how long each of the installer's writes takes.
	Installer scenarios.Duration `yaml:"installer,omitempty"`
	// StartupMonitor is how long each of the startup-monitor's writes
	// takes.
	StartupMonitor scenarios.Duration `yaml:"startupMonitor,omitempty"`
}

// Rollout moves the operator's target revision: it installs it on every
// node.
type Rollout struct {
	// Revision is the new target, one of the declared revisions.
	Revision int `yaml:"revision"`
}

// Etcd takes etcd away from every operand (down: true) or gives it back.
type Etcd struct {
	// Down takes etcd away; false gives it back.
	Down bool `yaml:"down"`
}

// Actions of staticpod scenarios. Process actions name a node, the
// operator's name the operator ("kube-apiserver").
const (
	actRollout          = "rollout"
	actKillMonitor      = "killMonitor"       // the named node's startup-monitor dies
	actRestartMonitor   = "restartMonitor"    // the named node's startup-monitor starts again, if its manifest is in place
	actKillInstaller    = "killInstaller"     // the named node's installer dies
	actRestartInstaller = "restartInstaller"  // the named node's installer is killed if it runs, and started again
	actKillPruner       = "killPruner"        // the named node's pruner dies
	actRestartPruner    = "restartPruner"     // the named node's pruner is killed if it runs, and started again
	actKillOperator     = "killOperator"      // the operator (named kube-apiserver) dies
	actRestartOperator  = "restartOperator"   // the operator is killed if it runs, and started again
	actHangOperator     = "hangOperator"      // the operator lives on, cut off from the API server
	actReconnect        = "reconnectOperator" // a hung operator sees the API server again
	actEtcd             = "etcd"
)

// Condition types the operator writes: the seed's Degraded, and
// library-go's StaticPodFallbackRevisionDegraded instead in that profile.
var conditionTypes = []string{"Degraded", "Available", "Progressing", "StaticPodFallbackRevisionDegraded"}

// Limits of the format (scenarios/README.md "Limits" states the shared ones).
const (
	defaultNode  = "master-0"
	defaultKeep  = 5
	maxNodes     = 5    // each node is five actors
	maxRevisions = 200  // declared revisions
	maxRevision  = 1e6  // a revision number
	maxKeep      = 1000 // the pruner's keep count
	maxWriteTime = time.Minute
	// maxNodeName leaves room for "kube-apiserver-" in the mirror pod's
	// name, a DNS-1123 label.
	maxNodeName = 63 - len(mirrorPrefix)
	maxHook     = 253
)

//go:embed scenarios/*.yaml
var builtinFiles embed.FS

// scenarioKind is the mechanism's part of the scenario format, registered
// with its plug-in (conformance.Plugin.Scenarios).
var scenarioKind = scenarios.Kind{
	World:      reflect.TypeFor[World](),
	Actions:    stepActions, // mechanism.go: with their value types and handlers
	Expects:    ClusterOperatorGVK,
	Conditions: conditionTypes,
	Roles:      []string{RoleOperator, RoleKubelet, RoleStartupMonitor},
	Validate:   validate,
	Draw:       draw,
	Builtins:   scenarios.Embedded(builtinFiles, "scenarios"),
}

// scenarioWorld is a scenario's World (Parse always sets it).
func scenarioWorld(sc *scenarios.Scenario) *World { return sc.World.(*World) }

// NodeNames are the scenario's nodes, the default one if none is given.
func (w *World) NodeNames() []string {
	if len(w.Nodes) == 0 {
		return []string{defaultNode}
	}
	return w.Nodes
}

// KeepCount is the pruner's keep count, defaulted.
func (w *World) KeepCount() int {
	if w.Keep == 0 {
		return defaultKeep
	}
	return w.Keep
}

// Linked is the revision last-known-good points at at the start, 0 for
// none.
func (w *World) Linked() int {
	if w.LastKnownGood != nil && !*w.LastKnownGood {
		return 0
	}
	return w.Installed
}

// Model is a declared revision's operand model; a revision not declared
// (which Validate refuses anywhere a run could meet it) is healthy.
func (w *World) Model(revision int) node.Model {
	for _, r := range w.Revisions {
		if r.Revision == revision {
			return r.model()
		}
	}
	return node.Model{Kind: node.Healthy}
}

func (r Revision) model() node.Model {
	d := func(x *scenarios.Duration) time.Duration {
		if x == nil {
			return 0
		}
		return x.Duration
	}
	return node.Model{Kind: node.Kind(r.Operand), StartDelay: d(r.StartDelay), ReadyAfter: d(r.ReadyAfter),
		CrashAfter: d(r.CrashAfter), PortWait: d(r.PortWait), EtcdDownFor: d(r.EtcdDownFor), Hook: r.Hook,
		Termination: r.Message}
}

// declared tells whether a revision is declared.
func (w *World) declared(revision int) bool {
	return slices.ContainsFunc(w.Revisions, func(r Revision) bool { return r.Revision == revision })
}

// initial are the revisions whose resource directories are on the nodes at
// time 0, ascending.
func (w *World) initial() []int {
	var out []int
	for _, r := range w.Revisions {
		if r.Revision <= w.Installed || r.Revision == w.LeftoverMonitor {
			out = append(out, r.Revision)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (w *World) writeTimes() (installer, monitor time.Duration) {
	if w.WriteTime == nil {
		return 0, 0
	}
	return w.WriteTime.Installer.Duration, w.WriteTime.StartupMonitor.Duration
}

// checker holds what the checks of one staticpod scenario share.
type checker struct {
	*scenarios.Check
	w     *World
	nodes map[string]bool
}

func validate(check *scenarios.Check, sc *scenarios.Scenario) {
	c := &checker{Check: check, w: scenarioWorld(sc), nodes: map[string]bool{}}
	c.checkNodes()
	c.checkRevisions()
	c.checkStart()
	for i, st := range sc.Steps {
		c.step(fmt.Sprintf("steps[%d]", i), st)
	}
}

func (c *checker) checkNodes() {
	if len(c.w.Nodes) > maxNodes {
		c.Errorf("nodes", "%d nodes; a run simulates at most %d", len(c.w.Nodes), maxNodes)
		return
	}
	for i, n := range c.w.Nodes {
		p := fmt.Sprintf("nodes[%d]", i)
		c.Label(p, n, maxNodeName)
		if c.nodes[n] {
			c.Errorf(p, "node %q is given twice; node names are unique", n)
		}
		c.nodes[n] = true
	}
	if len(c.w.Nodes) == 0 {
		c.nodes[defaultNode] = true
	}
}

func (c *checker) checkRevisions() {
	w := c.w
	switch n := len(w.Revisions); {
	case n == 0:
		c.Errorf("revisions", "required: declare the operand's revisions, like [{revision: 1, operand: healthy}]")
		return
	case n > maxRevisions:
		c.Errorf("revisions", "%d revisions; a scenario declares at most %d", n, maxRevisions)
		return
	}
	seen := map[int]int{}
	for i, r := range w.Revisions {
		p := fmt.Sprintf("revisions[%d]", i)
		switch {
		case r.Revision < 1 || r.Revision > maxRevision:
			c.Errorf(p+".revision", "%d is out of range; revisions are numbered from 1 to %d", r.Revision, int(maxRevision))
		default:
			if first, dup := seen[r.Revision]; dup {
				c.Errorf(p+".revision", "revision %d is declared twice (first at line %d); declare each once", r.Revision, c.Line(fmt.Sprintf("revisions[%d]", first)))
			}
			seen[r.Revision] = i
		}
		if r.Operand == "" {
			c.Errorf(p+".operand", "required; use one of: %s", kindList())
		} else if !slices.Contains(node.Kinds, node.Kind(r.Operand)) {
			c.Errorf(p+".operand", "%q is not an operand model; use one of: %s", r.Operand, kindList())
		}
		for _, d := range []struct {
			field string
			v     *scenarios.Duration
		}{{"startDelay", r.StartDelay}, {"readyAfter", r.ReadyAfter}, {"crashAfter", r.CrashAfter}, {"portWait", r.PortWait}, {"etcdDownFor", r.EtcdDownFor}} {
			if d.v != nil && (d.v.Duration < 0 || d.v.Duration > scenarios.MaxDuration) {
				c.Errorf(p+"."+d.field, "%v is out of range; use 0 (the model's default) to 720h", d.v.Duration)
			}
		}
		if r.Hook != "" && r.Operand != string(node.NotReady) {
			c.Errorf(p+".hook", "only a notReady operand has a hook it never finishes; remove hook or use operand: notReady")
		}
		if len(r.Hook) > maxHook || strings.ContainsAny(r.Hook, " \t\n") {
			c.Errorf(p+".hook", "%q is not a post-start hook name; use at most %d characters without spaces, like start-apiextensions-controllers", r.Hook, maxHook)
		}
		if r.Message != "" && r.Operand != string(node.BadConfig) && r.Operand != string(node.PortWaitTimeout) {
			c.Errorf(p+".message", "only a badConfig or portWaitTimeout operand exits by itself and prints a termination message; remove message or use one of those operands")
		}
		if len(r.Message) > node.MaxTermination || strings.ContainsAny(r.Message, "\r\n") {
			c.Errorf(p+".message", "is not one line of at most %d bytes; give one line, like \"Error: unknown flag: --foo\"", node.MaxTermination)
		}
	}
}

func (c *checker) checkStart() {
	w := c.w
	if w.Installed != 0 && !w.declared(w.Installed) {
		c.Errorf("installed", "revision %d is not declared under revisions; declare it, or use 0 for a node with nothing installed", w.Installed)
	}
	if w.LastKnownGood != nil && *w.LastKnownGood {
		if w.Installed == 0 {
			c.Errorf("lastKnownGood", "nothing is installed to link; install a revision, or roll one out and let the startup-monitor link it")
		} else if k := w.Model(w.Installed).Kind; w.declared(w.Installed) && k != node.Healthy && k != node.EtcdDownThenBack {
			c.Errorf("lastKnownGood", "the installed revision %d is %s, never ready, so it cannot be last-known-good; set lastKnownGood: false", w.Installed, k)
		}
	} else if w.LastKnownGood == nil && w.Installed != 0 && w.declared(w.Installed) {
		if k := w.Model(w.Installed).Kind; k != node.Healthy && k != node.EtcdDownThenBack {
			c.Errorf("installed", "revision %d is %s, never ready, so it cannot be last-known-good as it is by default; add lastKnownGood: false", w.Installed, k)
		}
	}
	if l := w.LeftoverMonitor; l != 0 && !w.declared(l) {
		c.Errorf("leftoverMonitor", "revision %d is not declared under revisions; declare it", l)
	}
	if w.Keep < 0 || w.Keep > maxKeep {
		c.Errorf("keep", "%d is out of range; the pruner keeps 1 to %d revisions (0 or absent: %d)", w.Keep, maxKeep, defaultKeep)
	}
	if wt := w.WriteTime; wt != nil {
		for _, d := range []struct {
			field string
			v     time.Duration
		}{{"writeTime.installer", wt.Installer.Duration}, {"writeTime.startupMonitor", wt.StartupMonitor.Duration}} {
			if d.v < 0 || d.v > maxWriteTime {
				c.Errorf(d.field, "%v is out of range; use 0 to %v", d.v, maxWriteTime)
			}
		}
	}
}

func (c *checker) step(p string, st scenarios.Step) {
	switch arg := st.Arg.(type) {
	case *Rollout:
		if !c.w.declared(arg.Revision) {
			c.Errorf(p+".rollout.revision", "revision %d is not declared under revisions; declared: %s", arg.Revision, c.revisions())
		}
	case string:
		switch st.Action {
		case actKillOperator, actRestartOperator, actHangOperator, actReconnect:
			if arg != operandName {
				c.Errorf(p+"."+st.Action, "no operator %q; the operator of this mechanism is %q", arg, operandName)
			}
		default:
			if !c.nodes[arg] {
				c.Errorf(p+"."+st.Action, "no node %q; nodes: %s", arg, strings.Join(c.w.NodeNames(), ", "))
			}
		}
	}
	if e := st.Expect; e != nil && e.Object != "" && (e.Kind == "" || e.Kind == ClusterOperatorGVK.Kind) && e.Object != operandName {
		c.Errorf(p+".expect.object", "no ClusterOperator %q; the operator writes %q", e.Object, operandName)
	}
}

func (c *checker) revisions() string {
	var out []string
	for _, r := range c.w.Revisions {
		out = append(out, fmt.Sprint(r.Revision))
	}
	return strings.Join(out, ", ")
}

func kindList() string {
	out := make([]string, len(node.Kinds))
	for i, k := range node.Kinds {
		out[i] = string(k)
	}
	return strings.Join(out, ", ")
}
