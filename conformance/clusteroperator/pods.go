package clusteroperator

import (
	"context"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/workload"
)

// podWorld runs the operands' pods: sim/workload's controllers and kubelet,
// in the components' operand namespaces only (an operator's own
// Deployment, in "<name>-operator", is the operator process itself, which
// the world runs as an actor or a process). Its default pace is the
// world's 30s, scaled in a real-time run (Stage.Scaled); an operand's own
// opcert.io/ready-after annotation overrides it.
type podWorld struct{ ctl *workload.Controller }

func startPods(ctx context.Context, st *conformance.Stage, w *World) (*podWorld, error) {
	namespaces := make([]string, 0, len(w.Components))
	for _, c := range w.Components {
		namespaces = append(namespaces, c.Name)
	}
	ctl := workload.New(workload.Options{Scheduler: st.Sched, API: st.API, Namespaces: namespaces, Nodes: w.nodes(),
		ReadyAfter: st.Scaled(defaultReadyAfter)})
	if err := st.Sched.Start(ctx, ctl.Actor()); err != nil {
		return nil, err
	}
	return &podWorld{ctl: ctl}, nil
}

func (p *podWorld) stick(ctx context.Context, component, operand, version string) error {
	return p.ctl.Stick(ctx, component, operand, version)
}

func (p *podWorld) holdNode(ctx context.Context, node string) error {
	return p.ctl.HoldNode(ctx, node)
}
