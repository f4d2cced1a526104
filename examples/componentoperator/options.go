package componentoperator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opcert/opcert/reference/component"
)

// ParseOperands reads "Deployment/server=3,DaemonSet/agent": each a kind,
// a name and, for a Deployment, its replicas.
func ParseOperands(s string) ([]component.Workload, error) {
	var out []component.Workload
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		kind, rest, ok := strings.Cut(item, "/")
		name, replicas, counted := strings.Cut(rest, "=")
		o := component.Workload{Kind: component.Kind(kind), Name: name}
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
