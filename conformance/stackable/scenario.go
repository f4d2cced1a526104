package stackable

import (
	"embed"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim/workload"
)

// Seed 004's part of the scenario format.

// World is what a stackable scenario declares beside the shared fields.
type World struct {
	// Nodes are where the pods run (default node-0, node-1, node-2): a
	// DaemonSet has a pod on each.
	Nodes []string `yaml:"nodes,omitempty"`
	// ReadyAfter is how long a new pod takes to get ready (default 30s).
	ReadyAfter *scenarios.Duration `yaml:"readyAfter,omitempty"`
	// Clusters are the product clusters at the start.
	Clusters []Cluster `yaml:"clusters,omitempty"`
	// Load adds many clusters and random pod failures (the benchmark's
	// world).
	Load *Load `yaml:"load,omitempty"`
}

// Cluster is a SampleCluster.
type Cluster struct {
	// Name is the SampleCluster's, unique among the clusters (steps name
	// a cluster by it alone), at most 40.
	Name string `yaml:"name"`
	// Namespace is the SampleCluster's (default: default).
	Namespace string `yaml:"namespace,omitempty"`
	// Roles are the workloads its operator owns, at least one.
	Roles []Role `yaml:"roles"`
	// Command is its operator-command annotation at the start (Paused or
	// Stopped).
	Command string `yaml:"command,omitempty"`
	// ClusterOperation is its spec.clusterOperation at the start.
	ClusterOperation *ClusterOperation `yaml:"clusterOperation,omitempty"`
}

// Role is a workload of a cluster.
type Role struct {
	// Name is the role's, unique in its cluster, at most 20.
	Name string `yaml:"name"`
	// Kind is StatefulSet, Deployment or DaemonSet.
	Kind string `yaml:"kind"`
	// Replicas is the number of pods of a StatefulSet or a Deployment,
	// 0 to 20; a DaemonSet takes none (a pod per node).
	Replicas int `yaml:"replicas,omitempty"`
}

// ClusterOperation is the operator-rs profile's switches.
type ClusterOperation struct {
	// ReconciliationPaused asks the operator to leave the cluster's
	// workloads as they are.
	ReconciliationPaused bool `yaml:"reconciliationPaused,omitempty"`
	// Stopped asks the operator to scale the cluster's workloads to 0.
	Stopped bool `yaml:"stopped,omitempty"`
}

// PodRef names a pod of a role by its place among the role's pods in name
// order (0 the first): a Deployment's pods have generated names.
type PodRef struct {
	// Cluster is the pod's cluster, by name.
	Cluster string `yaml:"cluster"`
	// Role is the pod's role in it.
	Role string `yaml:"role"`
	// Pod is the pod's place among the role's pods, 0 the first.
	Pod int `yaml:"pod"`
}

// Scale sets a role's replicas in the cluster's spec (the user's edit).
type Scale struct {
	// Cluster is the cluster, by name.
	Cluster string `yaml:"cluster"`
	// Role is its role to scale: a StatefulSet or a Deployment.
	Role string `yaml:"role"`
	// Replicas is the role's new number of pods, 0 to 20.
	Replicas int `yaml:"replicas"`
}

// Command sets (or, empty, removes) a cluster's operator-command.
type Command struct {
	// Cluster is the cluster, by name.
	Cluster string `yaml:"cluster"`
	// Command is Paused or Stopped; empty removes the annotation.
	Command string `yaml:"command,omitempty"`
}

// Operation sets a cluster's spec.clusterOperation.
type Operation struct {
	// Cluster is the cluster, by name.
	Cluster          string `yaml:"cluster"`
	ClusterOperation `yaml:",inline"`
}

// Break gives a cluster a spec its operator cannot render.
type Break struct {
	// Cluster is the cluster, by name.
	Cluster string `yaml:"cluster"`
	// Message is why its spec cannot be rendered, as the operator's
	// error would say.
	Message string `yaml:"message"`
}

// Load is many clusters of one StatefulSet each, spread over namespaces,
// whose pods fail at random: each cluster's next failure is drawn from an
// exponential distribution of mean MeanTimeToFailure, a failed or lost pod
// recovering after RecoverAfter; everything drawn from Seed.
type Load struct {
	// Clusters is how many clusters, 1 to 2000.
	Clusters int `yaml:"clusters"`
	// Namespaces is how many namespaces they spread over, 1 to 100.
	Namespaces int `yaml:"namespaces"`
	// Replicas is each StatefulSet's number of pods, 1 to 20.
	Replicas int `yaml:"replicas"`
	// MeanTimeToFailure is the mean time between two pod failures of a
	// cluster.
	MeanTimeToFailure scenarios.Duration `yaml:"meanTimeToFailure"`
	// RecoverAfter is how long a failed or lost pod stays so.
	RecoverAfter scenarios.Duration `yaml:"recoverAfter"`
	// Seed makes the failures reproducible.
	Seed uint64 `yaml:"seed,omitempty"`
}

// Actions of stackable scenarios.
const (
	actFail      = "failPod"          // the pod's phase turns Failed
	actLose      = "losePod"          // the pod's phase turns Unknown: its node stopped reporting
	actRecover   = "recoverPod"       // the pod is Running again, ready after the world's readyAfter
	actScale     = "scale"            // the user sets a role's replicas in the cluster's spec
	actCommand   = "annotate"         // the user sets or removes the cluster's operator-command annotation
	actOperation = "clusterOperation" // the user sets the cluster's spec.clusterOperation
	actBreak     = "break"            // the cluster's spec.broken is set: its operator cannot render it
	actFix       = "fix"              // the named cluster's spec.broken is cleared
	actKill      = "killOperator"     // true: the operator's process dies
	actRestart   = "restartOperator"  // true: the operator's process starts again
)

// The world's defaults and bounds.
const (
	defaultNamespace  = "default"
	defaultReadyAfter = 30 * time.Second
	maxClusters       = 2000
	maxReplicas       = 20
	maxNodes          = 20
)

var (
	defaultNodes = []string{"node-0", "node-1", "node-2"}
	kinds        = []string{"StatefulSet", "Deployment", "DaemonSet"}
	commands     = []string{"Paused", "Stopped"}
	// clusterConditions are what a SampleCluster reports (004 §Context;
	// ReconciliationPaused is operator-rs's name of Paused).
	clusterConditions = []string{"Available", "Progressing", "Degraded", "Paused", "Stopped", "ReconciliationPaused"}
)

//go:embed scenarios/*.yaml
var builtinFiles embed.FS

// scenarioKind is the mechanism's part of the scenario format, registered
// with its plug-in (conformance.Plugin.Scenarios).
var scenarioKind = scenarios.Kind{
	World:      reflect.TypeFor[World](),
	Actions:    stepActions, // world.go: with their value types and handlers
	Expects:    SampleClusterGVK,
	Conditions: clusterConditions,
	Roles:      []string{RoleOperator, workload.Role},
	Validate:   validate,
	Builtins:   scenarios.Embedded(builtinFiles, "scenarios"),
}

// scenarioWorld is a scenario's World (Parse always sets it).
func scenarioWorld(sc *scenarios.Scenario) *World { return sc.World.(*World) }

func (w *World) nodes() []string {
	if len(w.Nodes) == 0 {
		return defaultNodes
	}
	return w.Nodes
}

func (w *World) readyAfter() time.Duration {
	if w.ReadyAfter == nil {
		return defaultReadyAfter
	}
	return w.ReadyAfter.Duration
}

func (c Cluster) namespace() string {
	if c.Namespace == "" {
		return defaultNamespace
	}
	return c.Namespace
}

// clusters are the scenario's clusters and the load's.
func (w *World) clusters() []Cluster { return append(slices.Clone(w.Clusters), w.loadClusters()...) }

// loadRole is the one role of the load's clusters.
const loadRole = "server"

// loadClusters are the load's clusters: one StatefulSet "server" each,
// spread round-robin over the load's namespaces.
func (w *World) loadClusters() []Cluster {
	l := w.Load
	if l == nil {
		return nil
	}
	out := make([]Cluster, l.Clusters)
	for i := range out {
		out[i] = Cluster{Name: fmt.Sprintf("load-%04d", i), Namespace: fmt.Sprintf("load-%02d", i%l.Namespaces),
			Roles: []Role{{Name: loadRole, Kind: "StatefulSet", Replicas: l.Replicas}}}
	}
	return out
}

// namespaces are the clusters' namespaces, sorted.
func (w *World) namespaces() []string {
	var out []string
	for _, c := range w.clusters() {
		out = append(out, c.namespace())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func (w *World) cluster(name string) (Cluster, bool) {
	i := slices.IndexFunc(w.Clusters, func(c Cluster) bool { return c.Name == name })
	if i < 0 {
		return Cluster{}, false
	}
	return w.Clusters[i], true
}

type checker struct {
	*scenarios.Check
	w *World
}

func validate(check *scenarios.Check, sc *scenarios.Scenario) {
	c := &checker{Check: check, w: scenarioWorld(sc)}
	w := c.w
	if len(w.Nodes) > maxNodes {
		c.Errorf("nodes", "%d nodes; a run has at most %d", len(w.Nodes), maxNodes)
	}
	for i, n := range w.Nodes {
		c.Label(fmt.Sprintf("nodes[%d]", i), n, 63)
	}
	if w.ReadyAfter != nil && w.ReadyAfter.Duration < 0 {
		c.Errorf("readyAfter", "%v is negative; use 0 or more", w.ReadyAfter.Duration)
	}
	if len(w.Clusters) == 0 && w.Load == nil {
		c.Errorf("clusters", "required: the product clusters (SampleClusters), each with its roles")
	}
	seen := map[string]int{}
	for i, cl := range w.Clusters {
		p := fmt.Sprintf("clusters[%d]", i)
		c.Label(p+".name", cl.Name, 40)
		c.Label(p+".namespace", cl.namespace(), 63-scenarios.RunPrefixRoom)
		if j, dup := seen[cl.Name]; dup {
			c.Errorf(p+".name", "cluster %q is also clusters[%d]; names must be unique (steps name clusters alone)", cl.Name, j)
		}
		seen[cl.Name] = i
		c.command(p+".command", cl.Command)
		c.roles(p, cl)
	}
	if l := w.Load; l != nil {
		c.load(*l)
	}
	for i, st := range sc.Steps {
		c.step(fmt.Sprintf("steps[%d]", i), st)
	}
}

func (c *checker) command(p, cmd string) {
	if cmd != "" && !slices.Contains(commands, cmd) {
		c.Errorf(p, "%q is not an operator-command; use Paused or Stopped (004 §Implementation details), or leave it out", cmd)
	}
}

func (c *checker) roles(p string, cl Cluster) {
	if len(cl.Roles) == 0 {
		c.Errorf(p+".roles", "required: the workloads the operator owns (kind StatefulSet, Deployment or DaemonSet)")
	}
	names := map[string]bool{}
	for j, r := range cl.Roles {
		q := fmt.Sprintf("%s.roles[%d]", p, j)
		c.Label(q+".name", r.Name, 20)
		if names[r.Name] {
			c.Errorf(q+".name", "role %q is given twice in cluster %s", r.Name, cl.Name)
		}
		names[r.Name] = true
		switch {
		case !slices.Contains(kinds, r.Kind):
			c.Errorf(q+".kind", "%q is not a workload kind; use %s", r.Kind, strings.Join(kinds, ", "))
		case r.Kind == "DaemonSet" && r.Replicas != 0:
			c.Errorf(q+".replicas", "a DaemonSet runs one pod per node; leave replicas out")
		case r.Kind != "DaemonSet" && (r.Replicas < 0 || r.Replicas > maxReplicas):
			c.Errorf(q+".replicas", "%d is out of range; use 0 to %d", r.Replicas, maxReplicas)
		}
	}
}

func (c *checker) load(l Load) {
	if l.Clusters < 1 || l.Clusters > maxClusters {
		c.Errorf("load.clusters", "%d is out of range; use 1 to %d", l.Clusters, maxClusters)
	}
	if l.Namespaces < 1 || l.Namespaces > 100 {
		c.Errorf("load.namespaces", "%d is out of range; use 1 to 100", l.Namespaces)
	}
	if l.Replicas < 1 || l.Replicas > maxReplicas {
		c.Errorf("load.replicas", "%d is out of range; use 1 to %d", l.Replicas, maxReplicas)
	}
	if l.MeanTimeToFailure.Duration <= 0 {
		c.Errorf("load.meanTimeToFailure", "required: the mean time between two pod failures of a cluster, like 6h")
	}
	c.Faults("load.meanTimeToFailure", l.MeanTimeToFailure.Duration, l.Clusters, "clusters")
	if l.RecoverAfter.Duration <= 0 {
		c.Errorf("load.recoverAfter", "required: how long a failed pod stays failed, like 5m")
	}
}

func (c *checker) step(p string, st scenarios.Step) {
	switch arg := st.Arg.(type) {
	case *PodRef:
		if cl, ok := c.clusterRef(p+"."+st.Action+".cluster", arg.Cluster); ok {
			c.roleRef(p+"."+st.Action+".role", cl, arg.Role)
		}
		if arg.Pod < 0 {
			c.Errorf(p+"."+st.Action+".pod", "%d is negative: the pod's place among the role's pods, 0 the first", arg.Pod)
		}
	case *Scale:
		if cl, ok := c.clusterRef(p+".scale.cluster", arg.Cluster); ok {
			if r, ok := c.roleRef(p+".scale.role", cl, arg.Role); ok && r.Kind == "DaemonSet" {
				c.Errorf(p+".scale.role", "role %s is a DaemonSet, which runs a pod per node: it does not scale", r.Name)
			}
		}
		if arg.Replicas < 0 || arg.Replicas > maxReplicas {
			c.Errorf(p+".scale.replicas", "%d is out of range; use 0 to %d", arg.Replicas, maxReplicas)
		}
	case *Command:
		c.clusterRef(p+".annotate.cluster", arg.Cluster)
		c.command(p+".annotate.command", arg.Command)
	case *Operation:
		c.clusterRef(p+".clusterOperation.cluster", arg.Cluster)
	case *Break:
		c.clusterRef(p+".break.cluster", arg.Cluster)
		if strings.TrimSpace(arg.Message) == "" {
			c.Errorf(p+".break.message", "required: why the operator cannot render the cluster")
		}
	case string:
		c.clusterRef(p+".fix", arg)
	}
	if e := st.Expect; e != nil && e.Object != "" && (e.Kind == "" || e.Kind == SampleClusterGVK.Kind) {
		c.clusterRef(p+".expect.object", e.Object)
	}
}

func (c *checker) clusterRef(p, name string) (Cluster, bool) {
	cl, ok := c.w.cluster(name)
	if !ok {
		var names []string
		for _, x := range c.w.Clusters {
			names = append(names, x.Name)
		}
		c.Errorf(p, "no cluster %q; clusters: %s", name, strings.Join(names, ", "))
	}
	return cl, ok
}

func (c *checker) roleRef(p string, cl Cluster, name string) (Role, bool) {
	i := slices.IndexFunc(cl.Roles, func(r Role) bool { return r.Name == name })
	if i < 0 {
		var names []string
		for _, r := range cl.Roles {
			names = append(names, r.Name)
		}
		c.Errorf(p, "cluster %s has no role %q; roles: %s", cl.Name, name, strings.Join(names, ", "))
		return Role{}, false
	}
	return cl.Roles[i], true
}
