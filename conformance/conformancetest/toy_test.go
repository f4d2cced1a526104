package conformancetest_test

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/spf13/pflag"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// A toy sixth mechanism, written in this file alone, proves the contract
// of the checklist in docs/concepts/adding-a-mechanism.md: a lamp (a
// ConfigMap) is switched by the scenario, and its keeper must show each
// switch within 30s (TOY-001). Its steps are numbered as the checklist's;
// the others (a line in conformance/all, proofs, a page, the generated
// references) are not a test's to take.

const (
	toyName     = "toy"
	roleKeeper  = "keeper"
	actSwitch   = "switch"
	lampsNS     = "default"
	toyReaction = 30 * time.Second
)

var configMapGVK = corev1.SchemeGroupVersion.WithKind("ConfigMap")

// (2) The scenario kind: the world's lamps, one action (declared with its
// handler below), the built-ins.
type toyWorld struct {
	Lamps []string `yaml:"lamps"`
}

type toySwitch struct {
	Lamp string `yaml:"lamp"`
	To   string `yaml:"to"`
}

//go:embed testdata/toy
var toyFiles embed.FS

func init() {
	// (3) One registration of the plug-in, with (2) its part of the
	// scenario format.
	conformance.Register(conformance.Plugin{Name: toyName, Seed: "900",
		Flags: func(*pflag.FlagSet) func() (conformance.Mechanism, error) {
			return func() (conformance.Mechanism, error) { return toyMechanism(toyReaction), nil }
		},
		Scenarios: scenarios.Kind{
			World:   reflect.TypeFor[toyWorld](),
			Actions: toyActions,
			Expects: configMapGVK,
			Roles:   []string{roleKeeper},
			Validate: func(c *scenarios.Check, s *scenarios.Scenario) {
				lamps := s.World.(*toyWorld).Lamps
				for i, st := range s.Steps {
					if a, ok := st.Arg.(*toySwitch); ok && (!slices.Contains(lamps, a.Lamp) || a.To != "on" && a.To != "off") {
						c.Errorf(fmt.Sprintf("steps[%d].switch", i), "switch %s to %q: want a lamp of the world (%v) and on or off", a.Lamp, a.To, lamps)
					}
				}
			},
			Builtins: scenarios.Embedded(toyFiles, "testdata/toy"),
		}})
}

// (1) The mechanism: its role, with the reference first, a broken and a
// faithful subject, why it takes no team's subject, its rule and its
// world.
type keeperDelay time.Duration

var keepers = []conformance.Subject{
	{Name: "reference", Description: "shows a switch at once", Impl: keeperDelay(0)},
	{Name: "slow-40s", Description: "shows a switch 40s later, past the bound", Impl: keeperDelay(40 * time.Second)},
	{Name: "requeue-20s", Faithful: true, Description: "shows a switch 20s later, within the bound", Impl: keeperDelay(20 * time.Second)},
}

func toyMechanism(reaction time.Duration) conformance.Mechanism {
	return toy{reaction: reaction, Declared: conformance.Declare(toyName, "900",
		[]conformance.Role{{Name: roleKeeper, Subjects: keepers, Cannot: conformance.NoForm(toyWhy)}},
		[]judge.Rule{toyRule(reaction)}, buildToy)}
}

// toyWhy is why the toy takes no team's subject, and cannot be recorded
// or judged streaming.
const toyWhy = "a toy: it proves the mechanism contract in a test, and plays only its own keepers"

// toy is the mechanism: its declarations and its world (buildToy), and
// (7) the capabilities it has, each a method: a reaction bound
// (Reactive), and what it cannot do, with why (Limited).
type toy struct {
	conformance.Declared
	reaction time.Duration
}

func (t toy) Reaction() time.Duration { return t.reaction }

func (toy) WithReaction(d time.Duration) conformance.Mechanism { return toyMechanism(d) }

func (toy) Cannot() map[string]string {
	return map[string]string{conformance.CannotWatch: toyWhy, conformance.CannotStream: toyWhy}
}

// (4) The rule, over the timeline only, built with the reaction bound.
func toyRule(bound time.Duration) judge.Rule {
	return judge.Rule{
		ID: "TOY-001", Section: "900 §Lamps", Role: roleKeeper,
		Statement: fmt.Sprintf("the keeper shows each switch of a lamp within the reaction bound (%s)", bound),
		Check: func(j *judge.Judging) judge.Verdict {
			var g judge.Findings
			for i, e := range j.Events {
				to, switched := field(e, "data.switch")
				if !switched || e.Role != timeline.RoleScenario || e.Verb == timeline.VerbCreate {
					continue
				}
				deadline := e.Time.Add(bound)
				if deadline.After(j.End) {
					g.Skip("the run ended within the bound after the switch at " + j.Offset(e.Time))
					continue
				}
				g.Judged++
				if !slices.ContainsFunc(j.Events[i+1:], func(f timeline.Event) bool {
					shown, ok := field(f, "data.shown")
					return ok && shown == to && f.Role == roleKeeper && f.Object == e.Object && !f.Time.After(deadline)
				}) {
					g.FailIn(fmt.Sprintf("%s switched %s at %s was not shown by %s", e.Object.Name, to, j.Offset(e.Time), j.Offset(deadline)), e.Time, deadline, e)
				}
			}
			return g.Verdict("no lamp was switched")
		},
	}
}

// field is the new value of a recorded data field a write changed.
func field(e timeline.Event, path string) (string, bool) {
	for _, f := range e.Fields {
		var v string
		if f.Path == path && json.Unmarshal(f.After, &v) == nil {
			return v, true
		}
	}
	return "", false
}

// toyStage carries out the scenario's switches.
type toyStage struct{ scenario client.Client }

func buildToy(ctx context.Context, st *conformance.Stage, sc *scenarios.Scenario, cast conformance.Cast) (conformance.Actions, error) {
	delay, ok := cast[roleKeeper].Impl.(keeperDelay)
	if !ok {
		return nil, fmt.Errorf("toy: the keeper role cannot be played by %T", cast[roleKeeper].Impl)
	}
	if err := st.Sched.RecordFields(configMapGVK, "data.switch", "data.shown"); err != nil {
		return nil, err
	}
	w := &toyStage{scenario: st.Sched.Client(st.API, timeline.RoleScenario, timeline.RoleScenario)}
	for _, lamp := range sc.World.(*toyWorld).Lamps {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: lampsNS, Name: lamp}, Data: map[string]string{"switch": "off", "shown": "off"}}
		if err := w.scenario.Create(ctx, cm); err != nil {
			return nil, err
		}
	}
	k := &keeper{c: st.Sched.Client(st.API, roleKeeper, roleKeeper), clk: st.Sched.Clock(), delay: time.Duration(delay), since: map[string]time.Time{}}
	return toyActions.On(w), st.Sched.Start(ctx, sim.Actor{Name: roleKeeper, Role: roleKeeper, Reconciler: k, Watches: []sim.Watch{{GVK: configMapGVK}}})
}

// toyActions are the scenario's actions, each declared once: its name, its
// value's type and what carries it out on the world buildToy makes.
var toyActions = scenarios.Actions(scenarios.Act(actSwitch, (*toyStage).switchLamp))

func (w *toyStage) switchLamp(ctx context.Context, a toySwitch) error {
	var cm corev1.ConfigMap
	if err := w.scenario.Get(ctx, types.NamespacedName{Namespace: lampsNS, Name: a.Lamp}, &cm); err != nil {
		return err
	}
	cm.Data["switch"] = a.To
	return w.scenario.Update(ctx, &cm)
}

// keeper shows a lamp's switch delay after it first sees it.
type keeper struct {
	c     client.Client
	clk   clock.PassiveClock
	delay time.Duration
	since map[string]time.Time // by lamp and value to show
}

func (k *keeper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var cm corev1.ConfigMap
	if err := k.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Data["shown"] == cm.Data["switch"] {
		return reconcile.Result{}, nil
	}
	key := req.Name + "=" + cm.Data["switch"]
	since, ok := k.since[key]
	if !ok {
		since = k.clk.Now()
		k.since[key] = since
	}
	if wait := k.delay - k.clk.Now().Sub(since); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	cm.Data["shown"] = cm.Data["switch"]
	return reconcile.Result{}, k.c.Update(ctx, &cm)
}

// (6) The tests written once: the capability table's cells, and the suite
// (the reference on its golden timeline, the rule judged, the broken
// keeper failing it, the faithful one failing nothing), here on
// controller-runtime's fake client rather than an API server.
var toyRuns atomic.Int64

func TestToyMechanism(t *testing.T) {
	conformancetest.Capabilities(t, conformancetest.Mechanism(toyName))
	api := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).Build()
	conformancetest.Suite{
		Mechanism: toyName,
		API:       func() client.Client { return api },
		Prefix:    func() string { return fmt.Sprintf("t%03d-", toyRuns.Add(1)) },
		Broken:    []conformancetest.Broken{{Role: roleKeeper, Subject: "slow-40s", Scenario: "toy-switches", Rule: "TOY-001"}},
	}.Describe()
	RegisterFailHandler(Fail)
	RunSpecs(t, "the toy mechanism")
}
