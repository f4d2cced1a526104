// Command stackableoperator runs the example operator of package
// stackableoperator on the wall clock against the cluster of $KUBECONFIG
// (or --kubeconfig, or in-cluster). Its flags default to the variables
// opcert's process mode sets, so that opcert can run it with no argument:
//
//	stackableoperator --namespaces r01-default,r01-team-a
//
// With no namespace it watches every namespace (cluster mode: opcert
// creates the run's namespaces as it starts).
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/opcert/opcert/examples/stackableoperator"
	ref "github.com/opcert/opcert/reference/stackable"
)

func main() {
	namespaces := flag.String("namespaces", os.Getenv("OPCERT_NAMESPACES"), "the namespaces of its SampleClusters, comma separated; none: every namespace (default $OPCERT_NAMESPACES)")
	profile := flag.String("profile", string(ref.ProfileSeed), fmt.Sprintf("the conditions it publishes: %s (ADR027's table) or %s (what stackabletech/operator-rs shipped)", ref.ProfileSeed, ref.ProfileOperatorRS))
	flag.Parse()
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	opts := ref.Options{Namespaces: stackableoperator.Namespaces(*namespaces), Profile: ref.Profile(*profile)}
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "stackableoperator:", err)
		os.Exit(1)
	}
}

func run(opts ref.Options) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := stackableoperator.NewManager(cfg, opts)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
