package olm

import (
	"context"
	"encoding/json"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/sim/timeline"
)

// The aggregator outside opcert (process mode): a team's status probe
// operator as an executable, one process for the run (it keeps one
// operator's Probe), started with the run, killed and started afresh by
// the kill and restart steps of the aggregator, against opcert's API
// server in real time, with the reference gate and the scenario's steps
// as the operator. Its writes reach the run through conformance.Feed, put
// down to it by the API server's audit (actor "aggregator", role
// aggregator), the run's names of the CRs it lists in the Probe's status
// read as the scenario's (processWrote).
//
// Its command's placeholders (also OPCERT_<KEY>): those of the operator's
// (processes.go: {name} the Probe's name, the operator's CSV, as the API
// server holds it; {namespace} the operator's namespace, where the Probe
// is; {namespaces} the namespaces whose CRs it counts, which in library
// mode it finds by listing Namespaces, but other runs' namespaces hold
// CRs of the same kinds on a shared API server; {crds} the operator's
// owned CRDs, whose annotations it reads itself; {timeScale}), and
// {reading}, the reading of an Upgradeable expression the rules judge
// with (holds or blocks, --olm-reading).

// aggregatorPlaceholders are the keys of aggregatorVars
// (conformance.Role.Placeholders).
var aggregatorPlaceholders = append(append([]string(nil), placeholders...), "reading")

// playAggregator plays the aggregator role with the cast's subject and
// starts it.
func (w *world) playAggregator(ctx context.Context) error {
	var err error
	if w.agg, err = player.New(ctx, w.st, w.cast[RoleAggregator].Impl, w.aggregatorSpec()); err != nil {
		return err
	}
	return w.agg.Start(ctx, actorAggregator)
}

// aggregatorSpec is what the player needs of the aggregator role: the
// run feeds the Probe's writes, each filed by processWrote. An operator
// that is an executable too has its writes fed with the Probe's
// (processes.go): the aggregator's then come through that feed, and are
// not filed twice.
func (w *world) aggregatorSpec() player.Spec {
	var feed player.Mode
	if _, ok := w.cast[RoleOperator].Impl.(conformance.Process); !ok {
		feed.Prepare = func(ctx context.Context, _ *player.Player) error {
			return conformance.Feed(ctx, w.st, player.Recording(recordedFields, ProbeGVK), w.processWrote)
		}
	}
	return player.Spec{Role: RoleAggregator, Actor: func(string) string { return actorAggregator },
		Simulate: func(ctx context.Context, _ string) error { return w.startAggregator(ctx) },
		Vars: func(context.Context, string) (map[string]string, error) {
			vars := w.processVars()
			vars["reading"] = w.cfg.Reading
			return vars, nil
		},
		Process: feed}
}

// processWrote files a process's write: put down to the process by the
// API server's audit, with the CRs a Probe's status.probeResources lists
// named as the scenario names them. The process lists the CRs as the API
// server holds them, under the run's prefix (o001-foo-example, in a
// namespace of the run's: o001-team-a), and the rules read them against
// the scenario's names (foo-example, team-a).
func (w *world) processWrote(ctx context.Context, obj client.Object, e *timeline.Event) {
	w.st.Processes.Attribute(ctx, obj, e)
	prefix := w.st.Sched.Prefix
	for i, f := range e.Fields {
		if f.Path != probeResourcesPath || prefix == "" {
			continue
		}
		e.Fields[i].Before, e.Fields[i].After = unprefixed(f.Before, prefix), unprefixed(f.After, prefix)
	}
}

// probeResourcesPath is the recorded field of the Probe that names CRs.
const probeResourcesPath = "status.probeResources"

// unprefixed is a recorded status.probeResources with each entry's name
// and namespace taken out of the run's prefix; a value that is not such
// a list is left as it is.
func unprefixed(raw json.RawMessage, prefix string) json.RawMessage {
	var entries []map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &entries) != nil {
		return raw
	}
	for _, e := range entries {
		for _, key := range []string{"namespace", "name"} {
			if v, ok := e[key].(string); ok {
				e[key] = strings.TrimPrefix(v, prefix)
			}
		}
	}
	out, err := json.Marshal(entries)
	if err != nil {
		return raw
	}
	return out
}
