package componentoperator

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Config is what the operator knows of itself when it starts: the
// ClusterOperator it reports, where its operands live, the version it
// runs and rolls out, and its thresholds.
type Config struct {
	Name      string // the ClusterOperator it owns
	Namespace string // where its operands run, and the admin's ConfigMap
	Version   string // what it runs, and so what its operands must run
	// Operands are the workloads it rolls out, in order.
	Operands []Operand
	// Nodes are where a DaemonSet must have a pod; none: where its
	// controller schedules one (its status), as on a real cluster.
	Nodes []string
	// OperandImage is the image its operands' pods run, never pulled (it
	// is on the nodes); empty: a name of the simulated world's, which no
	// kubelet runs.
	OperandImage string
	// AdminConfigMap, in Namespace, holds under key upgradeBlocker what the
	// administrator must fix before an upgrade (default Name-admin).
	AdminConfigMap string
	// PodPace, when set, is written on each operand as the annotation
	// opcert.io/ready-after, which the pods of opcert's world obey.
	PodPace time.Duration
	// StallAfter is how long a rollout may make no progress before the
	// operator calls it stalled and reports Degraded.
	StallAfter time.Duration
	// Resync is how often every object is looked at again, change or not.
	Resync time.Duration
	// RetryAfter is when an operand write the API server refused is tried
	// again.
	RetryAfter time.Duration
	// Careless reports the new version as soon as the operand specs ask
	// for it, before a pod runs it: the deliberate mistake of the careless
	// variant (seed 001 §Version reporting during an upgrade forbids it).
	Careless bool
}

// Operand is a workload the operator rolls out.
type Operand struct {
	Kind string // "Deployment" or "DaemonSet"
	// Name is the workload's, in Namespace.
	Name     string
	Replicas int // a Deployment's
}

// The workload kinds it rolls out.
const (
	KindDeployment = "Deployment"
	KindDaemonSet  = "DaemonSet"
)

// ParseOperands reads "Deployment/server=3,DaemonSet/agent".
func ParseOperands(s string) ([]Operand, error) {
	var out []Operand
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		kind, rest, _ := strings.Cut(item, "/")
		name, count, hasCount := strings.Cut(rest, "=")
		if name == "" {
			return nil, fmt.Errorf("operand %q: want KIND/NAME, and =REPLICAS for a Deployment", item)
		}
		op := Operand{Kind: kind, Name: name}
		switch {
		case kind == KindDeployment && hasCount:
			n, err := strconv.Atoi(count)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("operand %q: %q is not a number of replicas", item, count)
			}
			op.Replicas = n
		case kind == KindDaemonSet && !hasCount:
		case kind == KindDeployment:
			return nil, fmt.Errorf("operand %q: a Deployment needs =REPLICAS", item)
		case kind == KindDaemonSet:
			return nil, fmt.Errorf("operand %q: a DaemonSet has a pod per node, not replicas", item)
		default:
			return nil, fmt.Errorf("operand %q: kind %q is neither Deployment nor DaemonSet", item, kind)
		}
		out = append(out, op)
	}
	return out, nil
}

// Validate says what is missing.
func (c Config) Validate() error {
	var missing []string
	for _, f := range [][2]string{{"name", c.Name}, {"namespace", c.Namespace}, {"version", c.Version}} {
		if f[1] == "" {
			missing = append(missing, f[0])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no %s given", strings.Join(missing, ", "))
	}
	if len(c.Operands) == 0 {
		return fmt.Errorf("no operands given: the operator has nothing to roll out")
	}
	if c.StallAfter <= 0 || c.Resync <= 0 || c.RetryAfter <= 0 {
		return fmt.Errorf("stall-after, resync and retry-after must be more than 0")
	}
	return nil
}

func (c Config) adminConfigMap() string {
	if c.AdminConfigMap != "" {
		return c.AdminConfigMap
	}
	return c.Name + "-admin"
}
