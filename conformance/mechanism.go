package conformance

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/scenarios"
)

// Mechanism is the contract every mechanism meets (the package doc tells
// it whole): its names, its roles and their subjects, its rules, and how a
// scenario's world is built with the chosen subjects. What a mechanism may
// also do is a capability of its own, a small interface found by type
// assertion (Recordable, Streaming, Tolerant, Scalable, Reactive,
// Clustered, Estimating); what it cannot do that a team might expect of
// it, it says why (Limited).
type Mechanism interface {
	// Name is the seed's short name, as scenarios name it.
	Name() string
	// Seed is the seed file's number, e.g. "000".
	Seed() string
	// Roles are the parts subjects play, each with its subjects (the
	// reference first) and the forms of a team's subject it takes.
	Roles() []Role
	// Rules judge the mechanism's timelines.
	Rules() []judge.Rule
	// Build starts the scenario's world with the cast's subjects and
	// returns what carries out its actions. Steps are queued before Build
	// runs; work Build queues at an instant runs after them.
	Build(ctx context.Context, st *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error)
}

// Declared implements Mechanism from values: a mechanism's type embeds
// the one Declare makes and adds the capabilities it has, each a method
// set of its own.
type Declared struct {
	name, seed string
	roles      []Role
	rules      []judge.Rule
	build      Build
}

// Build is a mechanism's Build.
type Build func(ctx context.Context, st *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error)

// With is the Build of a mechanism whose world is built with its
// configuration cfg.
func With[C any](cfg C, build func(ctx context.Context, st *Stage, cfg C, sc *scenarios.Scenario, cast Cast) (Actions, error)) Build {
	return func(ctx context.Context, st *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error) {
		return build(ctx, st, cfg, sc, cast)
	}
}

// Declare is a mechanism of its seed's short name and number, its roles,
// its rules and its Build.
func Declare(name, seed string, roles []Role, rules []judge.Rule, build Build) Declared {
	return Declared{name: name, seed: seed, roles: roles, rules: rules, build: build}
}

// Name is the seed's short name.
func (d Declared) Name() string { return d.name }

// Seed is the seed file's number.
func (d Declared) Seed() string { return d.seed }

// Roles are the mechanism's roles.
func (d Declared) Roles() []Role { return d.roles }

// Rules are the mechanism's rules.
func (d Declared) Rules() []judge.Rule { return d.rules }

// Build starts the scenario's world (Mechanism.Build).
func (d Declared) Build(ctx context.Context, st *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error) {
	return d.build(ctx, st, sc, cast)
}

// Recordable is a mechanism that opcert watch can record from a live API
// server, and opcert analyze judge.
type Recordable interface {
	// Recording says what a watch records of a live API server for the
	// mechanism, and whose writes play which role (record.Recording).
	Recording() *record.Recording
}

// Streaming is a mechanism whose rules judge a timeline one event at a
// time (judge.Stream), so that a long timeline is judged without being
// held; a mechanism without it is judged on its events, kept in memory.
type Streaming interface {
	// Online are the facts the mechanism's rules derive (Facts), readable
	// one event at a time.
	Online() []judge.Online
}

// Tolerant is a mechanism whose rules take slack on their deadlines, as a
// real-time run or a recording needs (the recorder's latency, the API
// server's second-truncated times); a mechanism without it takes none.
type Tolerant interface {
	// WithTolerance is the mechanism judged with d of slack.
	WithTolerance(d time.Duration) Mechanism
}

// Scalable is a mechanism whose times can be scaled (opcert run
// --time-scale: a 10m challenge at 0.01 is 6s); a mechanism without it
// plays and judges its scenarios' times as they are written only.
type Scalable interface {
	// Scaled is the mechanism with its thresholds multiplied by scale and
	// the budgets that judge a subject left as they are.
	Scaled(scale float64) Mechanism
}

// Reactive is a mechanism whose rules judge a subject's reactions within
// a bound: how long a subject may take to act on a change it can see (a
// rollout that completed, a condition that moved) before a rule that asks
// for the reaction fails. Real operators requeue and resync, so no seed's
// "then" means "at the same instant"; every report states the bound. A
// mechanism without it judges no reaction (or its seed fixes every
// deadline).
type Reactive interface {
	// Reaction is the bound the rules were built with.
	Reaction() time.Duration
	// WithReaction is the mechanism judged with bound d (opcert's
	// --reaction-bound).
	WithReaction(d time.Duration) Mechanism
}

// Clustered is a mechanism that can be played on a cluster (cluster mode):
// it says what a run there does beyond what it creates. A mechanism
// without it cannot (its world is simulated: a node's files).
type Clustered interface {
	// Touches lists what a scenario played by cast would do to objects
	// opcert did not create (touch.go); an empty list means the run writes
	// only what it creates.
	Touches(sc *scenarios.Scenario, cast Cast) []Touch
	// ClusterKinds are the cluster-scoped kinds a scenario's world creates
	// (a ClusterOperator, a ClusterVersion, named under the run's prefix);
	// Namespaces under the prefix need no entry. A run may create no other
	// cluster-scoped kind (cluster.KindPolicy: a scenario's create step of
	// one is refused before anything is written, unless the user names the
	// kind), and the next run sweeps these kinds for what a killed run
	// left.
	ClusterKinds() []schema.GroupKind
	// Namespaces lists the namespaces a scenario's world creates (named
	// under the run's prefix), in which its create steps may place objects
	// besides the namespaces the steps create; a create step into any
	// other namespace is refused before anything is written.
	Namespaces(sc *scenarios.Scenario) []string
	// Access lists the rights a scenario played by cast needs beyond the
	// ones every run needs (touch.go).
	Access(sc *scenarios.Scenario, cast Cast) []Access
}

// Estimating is a mechanism that can tell what a scenario costs, for
// --dry-run and the warning before a long run.
type Estimating interface {
	// Estimate is the API calls the scenario costs on the reference.
	Estimate(sc *scenarios.Scenario) int
}

// Limited is a mechanism that lacks a capability a team might expect of
// it and says why: `opcert mechanisms` prints the reason, and a capability
// lacked without one fails the capability table's test.
type Limited interface {
	// Cannot says why, keyed CannotWatch (not Recordable) and
	// CannotStream (not Streaming).
	Cannot() map[string]string
}

// The keys of Limited.Cannot.
const (
	// CannotWatch: the mechanism cannot be recorded from a live API server
	// (opcert watch, opcert analyze).
	CannotWatch = "watch"
	// CannotStream: its rules cannot judge a timeline one event at a time,
	// with bounded memory.
	CannotStream = "stream"
)

// Actions carries out a run's scenario actions: the mechanism's actions,
// declared once with their handlers (scenarios.Actions, the list its
// scenarios.Kind registers), bound to the world its Build made (On).
type Actions = *scenarios.Bound
