// Package player plays a mechanism's role whatever fills it: opcert's own
// actor or a team's reconciler in the run's scheduler, a team's executable
// (process mode: conformance.Processes), or a team's Deployment on a
// cluster (cluster mode: conformance.Deployments). The mechanism declares
// the role (Spec: the actor of each instance, the placeholders of its
// command, what the run records of its writes and who made them); its
// world then starts, kills, restarts and cuts off an instance through the
// Player without asking which form plays it, and the Player puts each
// start, kill, hang and reconnect of a subject outside opcert on the
// timeline as a process event, so that the rules excuse an instance for
// what it missed while down.
//
// It is a package of its own, not part of conformance, because it records
// the subjects' writes with package record, which imports conformance.
package player

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim/timeline"
)

// Spec is what a mechanism declares of a role for the Player. An instance
// is named by the object it owns as the scenario names it (a
// ClusterOperator's name, a component's): {name} of a Deployment's
// NAMESPACE/NAME.
type Spec struct {
	// Role is the role played.
	Role string
	// Actor is the actor name of the instance that owns object.
	Actor func(object string) string
	// Simulate starts the instance that owns object in the run's
	// scheduler, when opcert's subject or a team's reconciler plays the
	// role; nil when the role takes only subjects outside opcert.
	Simulate func(ctx context.Context, object string) error
	// Vars are the placeholders of the command of the instance that owns
	// object (conformance.Processes.StartWith), read at each of its starts.
	Vars func(ctx context.Context, object string) (map[string]string, error)
	// Process and Cluster are what the run needs of an executable and of a
	// Deployment.
	Process, Cluster Mode
}

// Mode is what a run needs for a subject outside opcert in one mode.
type Mode struct {
	// Prepare readies the run before the subject's writes are recorded
	// (the names it keeps: sim.Scheduler.FixNames, a feed of the
	// mechanism's own); nil: nothing to do.
	Prepare func(ctx context.Context, p *Player) error
	// Feed is what the run records of the subject's writes (conformance.Feed);
	// nil: nothing.
	Feed *record.Recording
	// Who names the maker of a fed write where the API server's audit does
	// not: in cluster mode every write (opcert cannot see who
	// authenticated there); in process mode a deletion: the audit names a
	// writer by the resourceVersion its write left, which a deletion's
	// watch event does not carry, so asking would wait out its bound
	// (holding back every later write) to learn nothing. Nil in process
	// mode: the audit is asked all the same.
	Who conformance.Who
	// Ready tells whether a restart step may start the instance now; one
	// that is not ready is left for the mechanism's world to start when
	// it is (an operator whose Deployment the version operator has not
	// applied yet). Nil: always.
	Ready func(ctx context.Context, object string) (bool, error)
	// RecordFound records a Deployment that runs when the run first
	// attaches it as starting then: where the world reaches an instance
	// during the run (the version operator applying it), not at its start.
	RecordFound bool
	// Listed: Who also names the writer of what the run finds when it
	// starts (conformance.FeedListed), which otherwise is no one's.
	Listed bool
}

// Player plays the instances of one role.
type Player struct {
	st   *conformance.Stage
	spec Spec
	cmd  *conformance.Process
	dep  *conformance.Deployment
	mode Mode // what the run needs for cmd or dep

	mu      sync.Mutex
	down    map[string]bool   // killed by a step, until a restart
	objects map[string]string // the object each actor started owns
}

// Takes tells whether a subject's implementation is one the Player plays
// itself: an executable or a Deployment.
func Takes(impl any) bool {
	switch impl.(type) {
	case conformance.Process, conformance.Deployment:
		return true
	}
	return false
}

// New plays the role with impl, the role's Subject.Impl: an executable or
// a Deployment, whose writes it starts recording; anything else is the
// mechanism's to build in Spec.Simulate.
func New(ctx context.Context, st *conformance.Stage, impl any, spec Spec) (*Player, error) {
	p := &Player{st: st, spec: spec, down: map[string]bool{}, objects: map[string]string{}}
	switch impl := impl.(type) {
	case conformance.Process:
		if st.Processes == nil || !st.Sched.Realtime() {
			return nil, fmt.Errorf("the %s role: an executable needs a real-time run on opcert's own API server (process mode)", spec.Role)
		}
		p.cmd, p.mode = &impl, spec.Process
		st.Restarts(spec.Role, p)
	case conformance.Deployment:
		if st.Deployments == nil || st.Config == nil {
			return nil, fmt.Errorf("the %s role: a Deployment needs a run on a cluster (cluster mode: opcert run --kubeconfig)", spec.Role)
		}
		p.dep, p.mode = &impl, spec.Cluster
	default:
		if spec.Simulate == nil {
			return nil, fmt.Errorf("the %s role cannot be played by %T", spec.Role, impl)
		}
		st.Restarts(spec.Role, p)
		return p, nil
	}
	if p.mode.Prepare != nil {
		if err := p.mode.Prepare(ctx, p); err != nil {
			return nil, err
		}
	}
	if p.mode.Feed != nil {
		feed := conformance.Feed
		if p.mode.Listed {
			feed = conformance.FeedListed
		}
		if err := feed(ctx, st, p.mode.Feed, p.who(p.mode.Who)); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// who is how a fed write's maker is named: by mode's Who on a cluster; in
// process mode by the audit (conformance.Processes.Attribute), but a
// deletion, which Who names when given.
func (p *Player) who(who conformance.Who) conformance.Who {
	if p.dep != nil {
		return who
	}
	return func(ctx context.Context, obj client.Object, e *timeline.Event) {
		if who != nil && e.Verb == timeline.VerbDelete {
			who(ctx, obj, e)
			return
		}
		p.st.Processes.Attribute(ctx, obj, e)
	}
}

// Executable tells whether an executable plays the role (process mode).
func (p *Player) Executable() bool { return p.cmd != nil }

// Deployed tells whether a Deployment on the cluster plays the role
// (cluster mode).
func (p *Player) Deployed() bool { return p.dep != nil }

// Outside tells whether a subject outside opcert plays the role: opcert
// neither runs its code nor tells it what to report.
func (p *Player) Outside() bool { return p.cmd != nil || p.dep != nil }

// Command is the executable's command (process mode), nil otherwise.
func (p *Player) Command() []string {
	if p.cmd == nil {
		return nil
	}
	return p.cmd.Command
}

// Key is the Deployment of the instance that owns object (cluster mode).
func (p *Player) Key(object string) types.NamespacedName { return p.dep.For(object) }

// Running tells whether the instance runs (maybe cut off); a Deployment
// runs when it has replicas, as far as opcert set or saw.
func (p *Player) Running(object string) bool {
	actor := p.spec.Actor(object)
	switch {
	case p.cmd != nil:
		return p.st.Processes.Running(actor)
	case p.dep != nil:
		return p.st.Deployments.Running(actor)
	}
	return p.st.Sched.Running(actor)
}

// Down tells whether a step killed the instance and none restarted it.
func (p *Player) Down(object string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down[object]
}

// up forgets that a step killed the instance: Start starts it again.
func (p *Player) up(object string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.down, object)
}

// Attach reads the scale of the instance's Deployment (once per run) and
// tells whether it runs: a Deployment the run finds running was started
// by the team, not by opcert. In other forms it tells whether the
// instance runs.
func (p *Player) Attach(ctx context.Context, object string) (bool, error) {
	if p.dep == nil {
		return p.Running(object), nil
	}
	actor := p.spec.Actor(object)
	first := !p.st.Deployments.Attached(actor)
	running, err := p.st.Deployments.Attach(ctx, actor, p.spec.Role, p.dep.For(object))
	if err == nil && first && running && p.mode.RecordFound {
		p.record(ctx, object, timeline.VerbStart)
	}
	return running, err
}

// attached tells whether the instance's Deployment has been attached; an
// instance of another form always is.
func (p *Player) attached(object string) bool {
	return p.dep == nil || p.st.Deployments.Attached(p.spec.Actor(object))
}

// Start starts the instance unless it runs or a step killed it: its
// executable with its placeholders, its Deployment scaled back up (a
// Deployment that runs when the run first sees it is left as it is), or
// the mechanism's own in the scheduler (Spec.Simulate).
func (p *Player) Start(ctx context.Context, object string) error {
	running, err := p.Attach(ctx, object)
	if err != nil || running || p.Down(object) {
		return err
	}
	actor := p.spec.Actor(object)
	p.mu.Lock()
	p.objects[actor] = object
	p.mu.Unlock()
	switch {
	case p.cmd != nil:
		vars, err := p.spec.Vars(ctx, object)
		if err == nil {
			err = p.st.Processes.StartWith(actor, p.spec.Role, vars, p.cmd.Command)
		}
		if err != nil {
			return err
		}
	case p.dep != nil:
		if err := p.st.Deployments.Start(ctx, actor); err != nil {
			return err
		}
	default:
		return p.spec.Simulate(ctx, object)
	}
	p.record(ctx, object, timeline.VerbStart)
	return nil
}

// Stop kills the instance if it runs (SIGKILL to the executable's process
// group, the Deployment scaled to 0, attached first), without marking it
// down: a rollout replacing it, an instance the scenario says is stopped
// at time zero.
func (p *Player) Stop(ctx context.Context, object string) error {
	running, err := p.Attach(ctx, object)
	if err != nil || !running {
		return err
	}
	actor := p.spec.Actor(object)
	switch {
	case p.cmd != nil:
		err = p.st.Processes.Kill(actor)
	case p.dep != nil:
		err = p.st.Deployments.Kill(ctx, actor)
	default:
		return p.st.Sched.Kill(ctx, actor)
	}
	p.record(ctx, object, timeline.VerbKill)
	return err
}

// Kill is a step's kill: the instance stops if it runs, and stays down
// until Restart (Start leaves it down).
func (p *Player) Kill(ctx context.Context, object string) error {
	p.mu.Lock()
	p.down[object] = true
	p.mu.Unlock()
	return p.Stop(ctx, object)
}

// Restart is a step's restart: a new instance, the running one killed
// first; none yet for an instance whose Deployment the run has not
// attached, or that is not ready (Mode.Ready): the world starts it then.
func (p *Player) Restart(ctx context.Context, object string) error {
	p.up(object)
	if !p.attached(object) {
		return nil
	}
	if p.mode.Ready != nil {
		if ready, err := p.mode.Ready(ctx, object); err != nil || !ready {
			return err
		}
	}
	if err := p.Stop(ctx, object); err != nil {
		return err
	}
	return p.Start(ctx, object)
}

// StartAgain starts again an actor a crash killed in the scheduler
// (conformance.Restarter): a new instance of the object it owned, unless
// a step killed it since.
func (p *Player) StartAgain(ctx context.Context, actor string) error {
	object, err := p.object(actor)
	if err != nil {
		return err
	}
	return p.Start(ctx, object)
}

// Crash kills an executable's process (conformance.Restarter), with
// detail on its kill event, and starts it again unless a step killed it.
func (p *Player) Crash(ctx context.Context, actor, detail string) error {
	object, err := p.object(actor)
	if err != nil || p.cmd == nil || !p.Running(object) {
		return err // a step killed or restarted it meanwhile
	}
	if err := p.st.Processes.Kill(actor); err != nil {
		return err
	}
	p.st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: p.spec.Role, Verb: timeline.VerbKill,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}, Detail: detail})
	return p.Start(ctx, object)
}

// Executables are the actors of the running instances an executable plays
// (conformance.Restarter), sorted.
func (p *Player) Executables() []string {
	if p.cmd == nil {
		return nil
	}
	p.mu.Lock()
	var out []string
	for actor := range p.objects {
		out = append(out, actor)
	}
	p.mu.Unlock()
	out = slices.DeleteFunc(out, func(a string) bool { return !p.st.Processes.Running(a) })
	slices.Sort(out)
	return out
}

// object is the object an actor the player started owns.
func (p *Player) object(actor string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	object, ok := p.objects[actor]
	if !ok {
		return "", fmt.Errorf("the %s role has no instance %s", p.spec.Role, actor)
	}
	return object, nil
}

// Hang cuts the running instance off the API server (cut) or lets it
// through again; a Deployment cannot be cut off, which the step says
// (conformance.Skipped).
func (p *Player) Hang(ctx context.Context, object string, cut bool) error {
	if !p.Running(object) {
		return nil
	}
	actor := p.spec.Actor(object)
	switch {
	case p.cmd != nil:
		p.st.Processes.Cut(actor, cut)
	case p.dep != nil:
		return &conformance.Skipped{Reason: "the " + p.spec.Role + " is a Deployment on the cluster: opcert cannot cut its pods off the API server"}
	default:
		return p.st.Sched.Partition(ctx, actor, cut)
	}
	verb := timeline.VerbReconnect
	if cut {
		verb = timeline.VerbHang
	}
	p.record(ctx, object, verb)
	return nil
}

// Restore scales the instance's Deployment back to the replicas it had
// when the run first saw it, before the run's end does (cluster mode): for
// a mechanism that undoes its own writes to the Deployment and must not
// have a pod run them first (conformance.Deployments.Restore).
func (p *Player) Restore(ctx context.Context, object string) error {
	return p.st.Deployments.Restore(ctx, p.spec.Actor(object))
}

// Note adds what the run did to the instance's Deployment besides its
// scale to what the report says of it (cluster mode).
func (p *Player) Note(object, what string) { p.st.Deployments.Note(p.spec.Actor(object), what) }

// Recording records kinds with the fields of each that fields names; who
// made a write is the Mode's to say (Who), not the recording's.
func Recording(fields map[schema.GroupVersionKind][]string, kinds ...schema.GroupVersionKind) *record.Recording {
	rec := &record.Recording{Kinds: kinds, Fields: map[schema.GroupVersionKind][]string{}, Role: func(string) string { return "" }}
	for _, k := range kinds {
		rec.Fields[k] = fields[k]
	}
	return rec
}

// record puts a start, kill, hang or reconnect of the instance, played
// outside opcert, on the timeline (the scheduler records its own actors').
func (p *Player) record(ctx context.Context, object, verb string) {
	actor := p.spec.Actor(object)
	p.st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: p.spec.Role, Verb: verb,
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
}
