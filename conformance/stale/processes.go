package stale

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/sim/timeline"
)

// The operators outside opcert (package player plays them): an executable
// per operator in real time (process mode), started with the
// ClusterOperator's name, or a team's Deployment per operator on a cluster
// (cluster mode, deployments.go). Their writes are seen on the API server
// and filed as the operator's (only the detector, opcert's, and the
// operator of a ClusterOperator write it).
//
// What its operand reports (the scenario's conditions, and setCondition
// steps) reaches an executable in a file it may read, named by {operand}
// and OPCERT_OPERAND: a JSON list of conditions (type, status, reason,
// message), replaced whole at each change. A command that does not name
// it reports conditions of its own, and the run says so.

// placeholders are what an operator's command may hold: {name}, its
// ClusterOperator as the API server holds it (r01-etcd), and {operand}.
var placeholders = []string{"name", "operand"}

// operatorSpec is what the player needs of the operator role.
func (w *world) operatorSpec(fleet []Operator) player.Spec {
	// In process mode a write is put down to the process whose user made
	// it, as the API server's audit says; on a cluster, where opcert
	// cannot see who authenticated, to the operator of the ClusterOperator
	// written or, by its field manager, to a detector (operatorWrote).
	rec := recording(DefaultDetectorManagers)
	return player.Spec{Role: RoleOperator, Actor: OperatorActor, Simulate: w.simulate, Vars: w.vars,
		Process: player.Mode{Feed: rec, Prepare: func(context.Context, *player.Player) error {
			var err error
			w.operands, err = os.MkdirTemp(w.st.Dir, "operands-") // inside the run's directory, gone with it
			return err
		}},
		// The team's operators run before the run (a Deployment at 0
		// replicas is scaled up at its start) and own their ClusterOperators:
		// what the run finds is theirs, and so is answering a challenge to
		// it before their first write of the run (a careless operator that
		// writes nothing then is judged, not skipped).
		Cluster: player.Mode{Feed: rec, Prepare: func(context.Context, *player.Player) error {
			w.fixNames(fleet)
			return nil
		}, Who: operatorWrote, Listed: true},
	}
}

// operatorWrote puts a write opcert did not make down to the operator of
// the ClusterOperator written (cluster mode, where opcert cannot see who
// authenticated), but one whose field manager is a detector's
// (DefaultDetectorManagers, read by the recording): a detector Deployment
// beside the operators' (opcert's own detector's writes are filed as it
// makes them).
func operatorWrote(_ context.Context, obj client.Object, e *timeline.Event) {
	if e.Role == RoleDetector {
		e.Actor = RoleDetector
		return
	}
	e.Actor, e.Role = OperatorActor(obj.GetName()), RoleOperator
}

// noOperand says, for a run whose command does not name {operand}, that
// the scenario's conditions are not given to the operators: what they
// report is their own, and the expectations read what they wrote.
const noOperand = "the scenario's operator conditions (and setCondition steps) reach an executable only as the file {operand} (also OPCERT_OPERAND), which this command does not name: the conditions it reports are its own"

// noOperandDeployed says the same of a team's Deployments (cluster mode).
const noOperandDeployed = "the scenario's operator conditions (and setCondition steps) are not given to a Deployment: the conditions it reports are its own"

// noteNotGiven records, at the start of a run whose operators are outside
// opcert and not given their operands' conditions, what the scenario gives
// an operator that they did not get, as a step that did not apply: the
// scenario's expectations count it and quote it.
func (w *world) noteNotGiven(ctx context.Context) {
	why := noOperandDeployed
	if w.play.Executable() {
		if slices.ContainsFunc(w.play.Command(), func(s string) bool { return strings.Contains(s, "{operand}") }) {
			return
		}
		why = noOperand
	}
	w.st.Sched.Record(ctx, timeline.Event{Actor: timeline.RoleScenario, Role: timeline.RoleScenario, Verb: timeline.VerbSkip,
		Object: timeline.ObjectRef{Kind: timeline.KindStep, Name: "conditions"}, Detail: why})
}

// operandFile is the operator's operand file, written afresh.
func (w *world) operandFile(name string) (string, error) {
	o, err := w.get(name)
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
	path := filepath.Join(w.operands, name+".json")
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

// vars are the placeholders of the operator's process. The run's prefix
// keeps its objects apart on the API server: the process must own the
// prefixed ClusterOperator.
func (w *world) vars(_ context.Context, name string) (map[string]string, error) {
	operand, err := w.operandFile(name)
	if err != nil {
		return nil, err
	}
	return map[string]string{"name": w.st.Sched.ServerName(ClusterOperatorGVK.GroupKind(), name), "operand": operand}, nil
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
func (w *world) awaitFirstWrites(ctx context.Context, names []string) {
	ctx, cancel := context.WithTimeout(ctx, startupWait)
	defer cancel()
	for _, name := range names {
		key := types.NamespacedName{Name: w.st.Sched.ServerName(ClusterOperatorGVK.GroupKind(), name)}
		for {
			co := &configv1.ClusterOperator{}
			if err := w.st.API.Get(ctx, key, co); err == nil && len(co.Status.Conditions) > 0 {
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

// opcerts tells whether opcert plays the operators, so that it can change
// what their operands report and how fast they answer.
func (w *world) opcerts() bool {
	return w.externalOperator == nil && !w.play.Outside()
}
