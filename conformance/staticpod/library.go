package staticpod

import (
	"fmt"
	"reflect"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/staticpod/contract"
)

// Library mode: a team's Go core (conformance.Core, package certify's
// Options.Core) plays a role in virtual time, as opcert's subjects do.
// Seed 003's roles work on a node's files and its operand's loopback
// endpoints, which no Kubernetes client gives, so a team's library form
// is not a reconciler but an implementation of the role's interface in
// the role contract (conformance/staticpod/contract): the role's adapter
// reads the simulated node, gives the core its view, and carries out its
// decision, exactly as for the reference. The team's constructor makes a
// new instance for each process of the role (each revision's
// startup-monitor on each node, each node's installer and pruner, the
// operator), and again at each restart: what a core keeps in itself is
// lost with its process, as a real one's memory is; what the operator
// must keep, it returns as Memory, which the world keeps in its status.

// teamImpl is a role's implementation as this mechanism's own type (a
// monitorImpl, installerImpl, operatorImpl or prunerImpl) when impl is a
// team's core, checked once before the run starts; any other impl as it
// is.
func teamImpl(role string, impl any) (any, error) {
	switch t := impl.(type) {
	case conformance.Reconciler:
		return nil, fmt.Errorf("%s: the %s role takes a team's Go core (certify's Options.Core), not a reconciler: it works on a simulated node's files and endpoints, which a client cannot give, through the views of conformance/staticpod/contract", Name, role)
	case conformance.Core:
		switch role {
		case RoleStartupMonitor:
			team, err := teamCore[contract.Monitor](role, t)
			return monitorImpl(func(Config) monitorCore { return monitorCore{team: team} }), err
		case RoleInstaller:
			team, err := teamCore[contract.Installer](role, t)
			return installerImpl(func(Config) installerCore { return installerCore{team: team} }), err
		case RoleOperator:
			team, err := teamCore[contract.Operator](role, t)
			return operatorImpl(func(Config) operatorCore { return operatorCore{team: team} }), err
		case RolePruner:
			team, err := teamCore[contract.Pruner](role, t)
			return prunerImpl(func(Config) prunerCore { return prunerCore{team: team} }), err
		}
	}
	return impl, nil
}

// teamCore is the constructor of a team's core for role, whose interface
// is C. It makes one instance now, so that a constructor that returns
// nil or another type is refused before the run starts.
func teamCore[C any](role string, t conformance.Core) (func() (C, error), error) {
	newCore := func() (C, error) {
		v := t.New()
		c, ok := v.(C)
		if !ok || v == nil {
			return c, fmt.Errorf("%s: the team's core for the %s role is %T, not a %v (conformance/staticpod/contract)", Name, role, v, reflect.TypeFor[C]())
		}
		return c, nil
	}
	if t.New == nil {
		return nil, fmt.Errorf("%s: the team's core for the %s role has no constructor", Name, role)
	}
	_, err := newCore()
	return newCore, err
}
