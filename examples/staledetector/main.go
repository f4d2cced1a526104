// Command staledetector is an example detector of stale ClusterOperators,
// written from seed 000 alone (controller-runtime, nothing of opcert's): it
// watches every ClusterOperator, and when none of its Degraded,
// Available, Progressing, Upgradeable (or Failing, Degraded's older name)
// conditions has moved for --challenge-after, prefixes their messages with
// the seed's challenge; when nobody answers within --unknown-after, it
// sets them Unknown with the seed's second text. Its Detector reads the
// wall clock unless given another clock (certify_test.go gives it
// opcert's virtual time: library mode).
//
//	staledetector                                    # the seed's 10 and 10 minutes
//	staledetector --prefix r01- --challenge-after 6s --unknown-after 6s --silence 20m
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	configv1 "github.com/openshift/api/config/v1"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

func main() {
	prefix := flag.String("prefix", "", "look only at the ClusterOperators whose name begins with this")
	challengeAfter := flag.Duration("challenge-after", 10*time.Minute, "challenge a ClusterOperator whose conditions have not moved for this long")
	unknownAfter := flag.Duration("unknown-after", 10*time.Minute, "mark it Unknown when a challenge is not answered within this")
	silence := flag.Duration("silence", 0, "the silence the mark's text states (default: the two waits together)")
	flag.Parse()
	if *silence == 0 {
		*silence = *challengeAfter + *unknownAfter
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(*prefix, &Detector{ChallengeAfter: *challengeAfter, UnknownAfter: *unknownAfter, Silence: *silence}); err != nil {
		fmt.Fprintln(os.Stderr, "staledetector:", err)
		os.Exit(1)
	}
}

func run(prefix string, d *Detector) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	scheme := runtime.NewScheme()
	if err := configv1.Install(scheme); err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return err
	}
	// Read past the cache: a look right after the detector's own write
	// must see that write, not the object before it.
	d.Client = client.WithFieldOwner(mgr.GetClient(), "stale-detector")
	d.Reader = mgr.GetAPIReader()
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool { return strings.HasPrefix(o.GetName(), prefix) })
	err = ctrl.NewControllerManagedBy(mgr).Named("staledetector").
		For(&configv1.ClusterOperator{}, builder.WithPredicates(ours)).Complete(d)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
