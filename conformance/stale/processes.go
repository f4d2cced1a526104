package stale

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/sim/timeline"
)

// execs plays the operators as executables in real time (process mode):
// one process per operator, started with the ClusterOperator's name; kill
// is SIGKILL to its process group, hang cuts its proxy. The writes it
// makes are seen on the API server and filed as the operator's (only the
// detector, opcert's, and the operator of a ClusterOperator write it).
//
// What its operand reports (the scenario's conditions, and setCondition
// steps) is in a file the process may read, named by {operand} and
// OPCERT_OPERAND: a JSON list of conditions (type, status, reason,
// message), replaced whole at each change. A command that does not name
// it reports conditions of its own, and the run says so.
type execs struct {
	w     *world
	cmd   conformance.Process
	procs *conformance.Processes
	dir   string // the operand files
}

// placeholders are what an operator's command may hold: {name}, its
// ClusterOperator as the API server holds it (r01-etcd), and {operand}.
var placeholders = []string{"name", "operand"}

func newExecs(ctx context.Context, w *world, cmd conformance.Process) (*execs, error) {
	st := w.st
	if st.Processes == nil || !st.Sched.Realtime() {
		return nil, errors.New("stale: an operator that is an executable needs a real-time run on opcert's own API server (process mode)")
	}
	if err := observeOperators(ctx, st); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(st.Dir, "operands-") // inside the run's directory, gone with it
	if err != nil {
		return nil, err
	}
	return &execs{w: w, cmd: cmd, procs: st.Processes, dir: dir}, nil
}

// takesOperand tells whether the command names its operand's file.
func (e *execs) takesOperand() bool {
	return slices.ContainsFunc(e.cmd.Command, func(w string) bool { return strings.Contains(w, "{operand}") })
}

// noOperand says, for a run whose command does not name {operand}, that
// the scenario's conditions are not given to the operators: what they
// report is their own, and the expectations read what they wrote.
const noOperand = "the scenario's operator conditions (and setCondition steps) reach an executable only as the file {operand} (also OPCERT_OPERAND), which this command does not name: the conditions it reports are its own"

// noOperandDeployed says the same of a team's Deployments (cluster mode).
const noOperandDeployed = "the scenario's operator conditions (and setCondition steps) are not given to a Deployment: the conditions it reports are its own"

// note records, at the start of a run whose command does not name
// {operand}, that its operators were not given their conditions.
func (e *execs) note(ctx context.Context) {
	if !e.takesOperand() {
		noteNotGiven(ctx, e.w.st, noOperand)
	}
}

// noteNotGiven records what the scenario gives an operator that a subject
// outside opcert did not get, as a step that did not apply: the
// scenario's expectations count it and quote it.
func noteNotGiven(ctx context.Context, st *conformance.Stage, why string) {
	st.Sched.Record(ctx, timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbSkip,
		Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: "conditions"}, Detail: why})
}

// operandFile is the operator's operand file, written afresh.
func (e *execs) operandFile(name string) (string, error) {
	o, err := e.w.get(name)
	if err != nil {
		return "", err
	}
	conds := make([]configv1.ClusterOperatorStatusCondition, 0, len(o.want))
	for _, c := range o.want {
		conds = append(conds, asStatus(c))
	}
	data, err := json.Marshal(conds)
	if err != nil {
		return "", err
	}
	path := filepath.Join(e.dir, name+".json")
	// A rename replaces it whole: a process never reads half a file.
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("writing the operand of %s: %w", name, err)
	}
	return path, nil
}

// observeOperators files, in real time, the writes to ClusterOperators the
// run did not make (conformance.Feed). In process mode a write is put down to
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
	return conformance.Feed(ctx, st, recording(DefaultDetectorManagers), who)
}

func (e *execs) start(ctx context.Context, name string) error {
	actor := OperatorActor(name)
	operand, err := e.operandFile(name)
	if err != nil {
		return err
	}
	// The run's prefix keeps its objects apart on the API server: the
	// process must own the prefixed ClusterOperator.
	vars := map[string]string{"name": e.w.st.Sched.ServerName(ClusterOperatorGVK.GroupKind(), name), "operand": operand}
	if err := e.procs.StartWith(actor, RoleOperator, vars, e.cmd.Command); err != nil {
		return err
	}
	e.record(ctx, actor, timeline.VerbStart)
	return nil
}

// startupWait bounds how long a run waits for its first operators'
// processes to write their ClusterOperators.
const startupWait = 10 * time.Second

// awaitFirstWrites waits, up to startupWait, until the processes started
// at time zero have each written its ClusterOperator with conditions: in
// virtual time an operator's first write is at zero, and a process takes
// its time to start (hundreds of milliseconds on a loaded machine, which
// at 0.01 are a minute of the scenario: its operator would be killed at
// 1m before it wrote anything). The steps due meanwhile run once it is
// over; an operator that never writes leaves the run to say so.
func (e *execs) awaitFirstWrites(ctx context.Context, names []string) {
	ctx, cancel := context.WithTimeout(ctx, startupWait)
	defer cancel()
	for _, name := range names {
		key := types.NamespacedName{Name: e.w.st.Sched.ServerName(ClusterOperatorGVK.GroupKind(), name)}
		for {
			co := &configv1.ClusterOperator{}
			if err := e.w.st.API.Get(ctx, key, co); err == nil && len(co.Status.Conditions) > 0 {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(25 * time.Millisecond):
			}
		}
	}
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
		Object: timeline.ObjectRef{Kind: timeline.KindProcess, Name: actor}})
}
