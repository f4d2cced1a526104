package stale

import (
	"context"
	"errors"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/sim"
	"github.com/opcert/opcert/sim/timeline"
)

// execs plays the operators as executables in real time (process mode):
// one process per operator, started with the ClusterOperator's name; kill
// is SIGKILL to its process group, hang cuts its proxy. The writes it
// makes are seen on the API server and filed as the operator's (only the
// detector, opcert's, and the operator of a ClusterOperator write it).
type execs struct {
	w     *world
	cmd   conformance.Process
	procs *conformance.Processes
}

func newExecs(ctx context.Context, w *world, cmd conformance.Process) (*execs, error) {
	st := w.st
	if st.Processes == nil || !st.Sched.Realtime() {
		return nil, errors.New("stale: an operator that is an executable needs a real-time run on opcert's own API server (process mode)")
	}
	if err := observeOperators(ctx, st); err != nil {
		return nil, err
	}
	return &execs{w: w, cmd: cmd, procs: st.Processes}, nil
}

// observeOperators files, in real time, the writes to ClusterOperators the
// run did not make (record.Feed). In process mode a write is put down to
// the process whose user made it, as the API server's audit says; on a
// cluster, where opcert cannot see who authenticated, to the operator of
// the ClusterOperator written: only the detector, the run's own, and the
// operator of a ClusterOperator write it.
func observeOperators(ctx context.Context, st *conformance.Stage) error {
	who := func(_ context.Context, obj client.Object, e *timeline.Event) {
		e.Actor, e.Role = OperatorActor(obj.GetName()), RoleOperator
	}
	if st.Processes != nil {
		who = st.Processes.Attribute
	}
	return record.Feed(ctx, st, recording(DefaultDetectorManagers), who)
}

func (e *execs) start(ctx context.Context, name string) error {
	actor := OperatorActor(name)
	// The run's prefix keeps its objects apart on the API server: the
	// process must own the prefixed ClusterOperator.
	if err := e.procs.Start(actor, RoleOperator, e.w.st.Sched.ServerName(ClusterOperatorGVK.GroupKind(), name), e.cmd.Command); err != nil {
		return err
	}
	e.record(ctx, actor, timeline.VerbStart)
	return nil
}

func (e *execs) kill(ctx context.Context, name string) error {
	actor := OperatorActor(name)
	err := e.procs.Kill(actor)
	e.record(ctx, actor, timeline.VerbKill)
	return err
}

func (e *execs) cut(ctx context.Context, name string, cut bool) error {
	actor := OperatorActor(name)
	e.procs.Cut(actor, cut)
	verb := timeline.VerbReconnect
	if cut {
		verb = timeline.VerbHang
	}
	e.record(ctx, actor, verb)
	return nil
}

func (e *execs) record(ctx context.Context, actor, verb string) {
	recordProcess(ctx, e.w.st, actor, verb)
}

// recordProcess puts a start, kill, hang or reconnect of an operator
// played outside opcert (a process, a Deployment) on the timeline: the
// rules excuse an operator for what it missed while down.
func recordProcess(ctx context.Context, st *conformance.Stage, actor, verb string) {
	st.Sched.Record(ctx, timeline.Event{Actor: actor, Role: RoleOperator, Verb: verb,
		Object: timeline.ObjectRef{Kind: sim.ProcessKind, Name: actor}})
}
