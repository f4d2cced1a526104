package clusteroperator

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/clusteroperator/faithful"
	"github.com/opcert/opcert/reference/component"
)

// checkOperatorSubject refuses a subject the operator role cannot be
// played by here.
func (w *world) checkOperatorSubject() error {
	switch w.subject.(type) {
	case operatorImpl, faithfulImpl, conformance.Reconciler:
		return nil
	}
	return fmt.Errorf("%s: the %s role cannot be played by %T", Name, RoleOperator, w.subject)
}

// operatorReconciler is a component's operator process in virtual time:
// opcert's (reference/component's adapter, with a broken subject's flaws)
// or a team's Go reconciler (library mode), built for the component it
// owns with the run's client and clock. A team's reconciler finds the
// version it runs, its operands and its admin's blocker by the
// conventions of payload.go, as the reference does.
func (w *world) operatorReconciler(c client.Client, comp Component) (reconcile.Reconciler, error) {
	clk := w.st.Sched.Clock()
	switch impl := w.subject.(type) {
	case conformance.Reconciler:
		return impl.New(conformance.Instance{Client: c, Clock: clk, Name: comp.Name})
	case faithfulImpl:
		return faithful.New(c, clk, faithfulSetup(w.spec, comp), faithful.Variant(impl)), nil
	}
	opts := operatorOptions(w.spec, comp, w.subject.(operatorImpl)())
	// A scaled run (--time-scale) compresses the world and the rules'
	// thresholds: the reference's own stall threshold and the pace it
	// passes on to its pods follow, or it would report a stall only after
	// the run, and its pods would keep the unscaled pace.
	opts.StuckAfter, opts.ReadyAfter = w.st.Scaled(component.DefaultParams(comp.Name, "").StuckAfter), w.st.Scaled(opts.ReadyAfter)
	return component.NewOperator(c, clk, opts), nil
}

// operatorOptions lay out a component's operator in the world: its
// operands in the namespace of its name, its version read from its own
// Deployment (so that it does nothing until the version operator applied
// it, and runs a new version once an upgrade changed it), the world's
// pace passed on to its operands.
func operatorOptions(w *World, comp Component, flaws []component.Flaw) component.Options {
	opts := component.Options{Name: comp.Name, Namespace: comp.Name,
		Deployment: &types.NamespacedName{Namespace: operatorNamespace(comp.Name), Name: operatorDeployment(comp.Name)},
		Nodes:      w.nodes(), AdminConfigMap: adminConfigMap(comp.Name), ReadyAfter: comp.readyAfter(), Flaws: flaws}
	if comp.Failing {
		opts.Degraded = component.Failing
	}
	for _, o := range comp.Operands {
		opts.Operands = append(opts.Operands, component.Workload{Kind: component.Kind(o.Kind), Name: o.Name, Replicas: o.Replicas})
	}
	return opts
}

// faithfulSetup is a faithful variant's place in the world: what a team's
// operator knows of itself (its names, its operands, the nodes, the pace
// it passes on to its pods).
func faithfulSetup(w *World, comp Component) faithful.Setup {
	s := faithful.Setup{Name: comp.Name, Namespace: comp.Name, AdminConfigMap: adminConfigMap(comp.Name),
		Self:  types.NamespacedName{Namespace: operatorNamespace(comp.Name), Name: operatorDeployment(comp.Name)},
		Nodes: w.nodes(), ReadyAfter: comp.readyAfter()}
	for _, o := range comp.Operands {
		s.Operands = append(s.Operands, faithful.Operand{Kind: o.Kind, Name: o.Name, Replicas: o.Replicas})
	}
	return s
}
