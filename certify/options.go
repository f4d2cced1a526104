package certify

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	// Every mechanism, found by name through the registry (mechanism).
	_ "github.com/opcert/opcert/conformance/all"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
)

// New builds one instance of the team's reconciler: once per object for a
// role played once per object (the stale operator: name is its
// ClusterOperator), once for a role over every object (name ""), and again
// at each restart a scenario asks for. c is the run's client (it records
// every write); clk is the run's clock, the only time the reconciler may use.
type New func(c client.Client, clk clock.PassiveClock, name string) reconcile.Reconciler

// Options say what to certify, against what, and where.
type Options struct {
	// Mechanism is the seed's mechanism, as `opcert rules` names it ("stale").
	Mechanism string
	// Role is the role the team's reconciler plays ("operator").
	Role string
	// New builds the team's reconciler.
	New New
	// Core, in place of New, makes one instance of the team's decision
	// core for a role whose world drives a core rather than a reconciler:
	// seed 003's (staticpod) roles work on a simulated node's files and
	// endpoints, which no client gives, and Core returns the role's
	// interface of conformance/staticpod/contract (contract.Monitor,
	// Installer, Operator or Pruner). It is called for each process of the
	// role (each revision's startup-monitor on each node), again at each
	// restart.
	Core func() any
	// Name is the subject's name in reports; "team" if empty.
	Name string

	// Scenarios are built-in scenarios by name (`opcert scenarios list`);
	// Files are scenario files. With neither: every built-in of the
	// mechanism estimated at MaxCalls API calls or fewer.
	Scenarios, Files []string
	// MaxCalls bounds the default scenarios (0: 2000, which leaves out the
	// 24-hour fleet, about half a minute of wall time).
	MaxCalls int
	// Rules are the rules judged, by ID; empty: every rule of the
	// mechanism. "EXPECT" adds the scenarios' own expectations, otherwise
	// reported as not judged: they hold for any faithful subject, but some
	// follow steps skipped for a team's reconciler (its operand moves as
	// its own, not as a setCondition says).
	Rules []string
	// Flags set the mechanism's flags as `opcert run` takes them, without
	// the dashes: {"answer-budget": "10s"}.
	Flags map[string]string
	// Subjects fill the other roles by subject name (`opcert subjects`);
	// the reference by default.
	Subjects map[string]string

	// Config returns the API server to use, called when the runs start
	// (after a Ginkgo BeforeSuite that starts envtest): a team's envtest
	// (testEnv.Config), or opcert's shared one (Server.Config). Nil: opcert
	// starts its own for the call and stops it after.
	Config func() *rest.Config
	// Out, if set, is a directory to write junit.xml, report.json,
	// report.md and timelines/ into.
	Out string
	// Progress receives what a newcomer should see while the API server
	// starts (the first start may build it); nil: nothing.
	Progress io.Writer
	// Perturb, if set, explores the perturbations of each scenario (as
	// opcert perturb does) instead of playing it once: the report holds
	// the unperturbed run and a run per point played, each judged by the
	// rules asked for and by convergence (CONVERGE); with Out, each
	// failure's scenario files are written there too.
	Perturb *Perturb
}

// Perturb says which perturbations Run explores (opcert perturb's flags);
// a zero field takes opcert perturb's default.
type Perturb = conformance.Perturbing

const defaultMaxCalls = 2000

// plan is what Options resolve to before any API server is involved.
type plan struct {
	opts  Options
	m     conformance.Mechanism
	cast  conformance.Cast
	rules []judge.Rule // judged, in the mechanism's order
	// expect: the scenarios' expectations are judged too.
	expect bool
	scs    []*scenarios.Scenario
}

func newPlan(opts Options) (*plan, error) {
	switch {
	case opts.New == nil && opts.Core == nil:
		return nil, fmt.Errorf("certify: Options.New is nil: give the constructor of your reconciler (or Options.Core, of your core, for a role whose world drives one)")
	case opts.New != nil && opts.Core != nil:
		return nil, fmt.Errorf("certify: Options.New and Options.Core are both set: give one, the form your role takes")
	}
	if opts.Name == "" {
		opts.Name = "team"
	}
	m, err := mechanism(opts.Mechanism, opts.Flags)
	if err != nil {
		return nil, err
	}
	p := &plan{opts: opts, m: m}
	if p.cast, err = p.castOf(); err != nil {
		return nil, err
	}
	if err := p.chooseRules(); err != nil {
		return nil, err
	}
	if p.scs, err = p.scenarios(); err != nil {
		return nil, err
	}
	return p, nil
}

// mechanism builds the registered mechanism name with flags set.
func mechanism(name string, flags map[string]string) (conformance.Mechanism, error) {
	var names []string
	for _, pl := range conformance.Plugins() {
		names = append(names, pl.Name)
		if pl.Name != name {
			continue
		}
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		build := pl.Flags(fs)
		for k, v := range flags {
			if err := fs.Set(k, v); err != nil {
				var known []string
				fs.VisitAll(func(f *pflag.Flag) { known = append(known, f.Name) })
				return nil, fmt.Errorf("certify: mechanism %s: flag %s=%q: %v (its flags: %s)", name, k, v, err, strings.Join(known, ", "))
			}
		}
		m, err := build()
		if err != nil {
			return nil, fmt.Errorf("certify: mechanism %s: %w", name, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("certify: no mechanism %q; mechanisms: %s", name, strings.Join(names, ", "))
}

// castOf puts the team's reconciler (or core) in its role and the chosen
// subjects (or the references) in the others.
func (p *plan) castOf() (conformance.Cast, error) {
	o := p.opts
	if !conformance.HasRole(p.m, o.Role) {
		var roles []string
		for _, r := range p.m.Roles() {
			roles = append(roles, r.Name)
		}
		return nil, fmt.Errorf("certify: mechanism %s has no role %q; roles: %s", p.m.Name(), o.Role, strings.Join(roles, ", "))
	}
	// Whether the role takes a reconciler is the mechanism's declaration
	// (Role.Forms), refused before anything starts with the role's reason.
	if err := conformance.Refusal(p.m, o.Role, conformance.FormLibrary); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if _, taken := o.Subjects[o.Role]; taken {
		return nil, fmt.Errorf("certify: Options.Subjects names a subject for %s, the role your reconciler plays", o.Role)
	}
	cast, err := conformance.Subjects(p.m, o.Subjects)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if o.Core != nil {
		cast[o.Role] = conformance.Subject{Name: o.Name, Description: "the team's core (library mode)", Impl: conformance.Core{New: o.Core}}
		return cast, nil
	}
	cast[o.Role] = conformance.Subject{Name: o.Name, Description: "the team's reconciler (library mode)",
		Impl: conformance.Reconciler{New: func(in conformance.Instance) (reconcile.Reconciler, error) {
			r := o.New(in.Client, in.Clock, in.Name)
			if r == nil {
				return nil, fmt.Errorf("the constructor given to certify returned no reconciler for %q", in.Name)
			}
			return r, nil
		}}}
	return cast, nil
}

func (p *plan) chooseRules() error {
	if len(p.opts.Rules) == 0 {
		p.rules = p.m.Rules()
		return nil
	}
	var ids []string
	for _, r := range p.m.Rules() {
		ids = append(ids, r.ID)
	}
	for _, id := range p.opts.Rules {
		if id != "EXPECT" && !slices.Contains(ids, id) {
			return fmt.Errorf("certify: mechanism %s has no rule %q; rules: %s, EXPECT", p.m.Name(), id, strings.Join(ids, ", "))
		}
	}
	p.expect = slices.Contains(p.opts.Rules, "EXPECT")
	for _, r := range p.m.Rules() {
		if slices.Contains(p.opts.Rules, r.ID) {
			p.rules = append(p.rules, r)
		}
	}
	return nil
}

// scenarios loads the files and built-ins asked for, or the default set.
func (p *plan) scenarios() ([]*scenarios.Scenario, error) {
	var out []*scenarios.Scenario
	for _, f := range p.opts.Files {
		sc, err := scenarios.Load(f)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	for _, n := range p.opts.Scenarios {
		sc, err := scenarios.BuiltinNamed(n)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	if len(out) == 0 {
		return p.builtins()
	}
	seen := map[string]string{}
	for _, sc := range out {
		if sc.Mechanism != p.m.Name() {
			return nil, fmt.Errorf("%s: scenario %s is for mechanism %s, not %s", sc.Source, sc.Name, sc.Mechanism, p.m.Name())
		}
		if first, dup := seen[sc.Name]; dup {
			return nil, fmt.Errorf("%s: scenario %q is also %s; name each scenario once (reports and specs are named after it)", sc.Source, sc.Name, first)
		}
		seen[sc.Name] = sc.Source
	}
	return out, nil
}

// builtins are the mechanism's built-ins within MaxCalls. Every built-in
// casts every role of its mechanism, so each one exercises the role.
func (p *plan) builtins() ([]*scenarios.Scenario, error) {
	all, err := scenarios.Builtin()
	if err != nil {
		return nil, err
	}
	limit := p.opts.MaxCalls
	if limit <= 0 {
		limit = defaultMaxCalls
	}
	var out []*scenarios.Scenario
	for _, sc := range all {
		if e, ok := p.m.(conformance.Estimating); sc.Mechanism == p.m.Name() && (!ok || e.Estimate(sc) <= limit) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("certify: mechanism %s has no built-in scenario within %d API calls (Options.MaxCalls)", p.m.Name(), limit)
	}
	return out, nil
}
