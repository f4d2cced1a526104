package componentoperator

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/opcert/opcert/reference/component"
)

// Options are the operator's identity and its world.
type Options struct {
	// Name is its ClusterOperator's.
	Name string
	// Namespace is where its operands run.
	Namespace string
	// Version is what it runs, and so what its operands must run: a new
	// version comes with a new process, as a Deployment rollout brings it.
	Version string
	// Operands are the workloads it rolls out.
	Operands []Operand
	// Nodes are where a DaemonSet operand must run.
	Nodes []string
	// AdminConfigMap names the ConfigMap, in Namespace, whose
	// upgradeBlocker says what the admin must fix before an upgrade
	// (default Name-admin).
	AdminConfigMap string
	// ReadyAfter, when set, is passed on to each operand as the
	// opcert.io/ready-after annotation: how long opcert's simulated pods
	// take to get ready.
	ReadyAfter time.Duration
	// StuckAfter is how long a rollout may stall before the operator
	// reports Degraded (default 10m).
	StuckAfter time.Duration
}

// Operand is a workload the operator rolls out.
type Operand struct {
	Kind     component.Kind
	Name     string
	Replicas int // a Deployment's
}

// ParseOperands reads "Deployment/server=3,DaemonSet/agent": each a kind,
// a name and, for a Deployment, its replicas.
func ParseOperands(s string) ([]Operand, error) {
	var out []Operand
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		kind, rest, ok := strings.Cut(item, "/")
		name, replicas, counted := strings.Cut(rest, "=")
		o := Operand{Kind: component.Kind(kind), Name: name}
		switch {
		case !ok || name == "":
			return nil, fmt.Errorf("operand %q: want KIND/NAME[=REPLICAS]", item)
		case o.Kind == component.DaemonSet && !counted:
		case o.Kind == component.Deployment && counted:
			n, err := strconv.Atoi(replicas)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("operand %q: replicas %q is not a count", item, replicas)
			}
			o.Replicas = n
		default:
			return nil, fmt.Errorf("operand %q: want Deployment/NAME=REPLICAS or DaemonSet/NAME", item)
		}
		out = append(out, o)
	}
	return out, nil
}
