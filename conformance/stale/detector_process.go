package stale

import (
	"context"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance/player"
	"github.com/opcert/opcert/sim/timeline"
)

// The detector outside opcert: one executable for the whole run (process
// mode), since a detector watches every ClusterOperator, or one Deployment
// on a cluster (cluster mode: deployment:NAMESPACE/NAME, {name} being
// "detector"). The player starts an executable with a kubeconfig of its
// own user, so that the API server's audit puts its writes down to the
// detector, and kills and restarts it as the scenario's killDetector and
// restartDetector say; a Deployment it scales to 0 and back. A Deployment
// gets no placeholders: its arguments are the team's (the seed's waits
// unless they say otherwise), and it looks at every ClusterOperator of
// the cluster, the run's (named under the run's prefix) among them.
//
// What it needs of the run reaches it as placeholders (also set as
// OPCERT_<KEY>), the durations as Go writes them ("6s"), already at the
// run's time scale:
//
//   - {prefix}: the run's prefix of the ClusterOperators' names (r01-);
//     several runs may share the API server, and a detector that looked at
//     another run's ClusterOperators would write to them.
//   - {challengeAfter}, {unknownAfter}: the two waits (10 minutes each at
//     scale 1).
//   - {silence}: the silence the mark's text states ("more than 20
//     minutes"), the world's, not scaled: a run at a time scale plays the
//     world faster, and the text still states the world's time.
//   - {timeScale}: the run's scale (0.01), for a detector that scales its
//     own defaults.
var detectorPlaceholders = []string{"prefix", "challengeAfter", "unknownAfter", "silence", "timeScale"}

// detectorSpec is what the player needs of the detector role. The
// operators' player records the ClusterOperators' writes when executables
// or Deployments play them (processes.go); otherwise the detector's does,
// with the same recording: in process mode the audit names the detector's
// writes; on a cluster, where opcert's own operators' writes are filed as
// they make them, every other write to the run's ClusterOperators is the
// detector Deployment's.
func (w *world) detectorSpec() player.Spec {
	var feed, onCluster player.Mode
	if !w.play.Executable() {
		feed.Feed = recording(DefaultDetectorManagers)
	}
	if !w.play.Deployed() {
		onCluster = player.Mode{Feed: recording(DefaultDetectorManagers), Who: detectorWrote}
	}
	return player.Spec{Role: RoleDetector, Actor: func(string) string { return RoleDetector },
		Simulate: func(ctx context.Context, _ string) error { return w.startDetector(ctx) },
		Vars:     w.detectorVars, Process: feed, Cluster: onCluster}
}

// detectorWrote puts a write down to the detector (cluster mode).
func detectorWrote(_ context.Context, _ client.Object, e *timeline.Event) {
	e.Actor, e.Role = RoleDetector, RoleDetector
}

// detectorVars are the placeholders of the detector's process.
func (w *world) detectorVars(context.Context, string) (map[string]string, error) {
	return map[string]string{
		"prefix":         w.st.Sched.Prefix,
		"challengeAfter": w.cfg.ChallengeAfter.String(),
		"unknownAfter":   w.cfg.UnknownAfter.String(),
		"silence":        w.cfg.Stated().String(),
		"timeScale":      strconv.FormatFloat(w.st.Scale, 'g', -1, 64),
	}, nil
}
