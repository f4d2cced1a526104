// Command staleoperator runs the example operator of package staleoperator
// on the wall clock against the cluster of --kubeconfig (or $KUBECONFIG, or
// in-cluster).
//
//	staleoperator --name etcd                          # watches its ClusterOperator, answers at once
//	staleoperator --name etcd --careless --resync 60s  # looks only every 60s
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/go-logr/logr"
	configv1 "github.com/openshift/api/config/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/examples/staleoperator"
)

func main() {
	name := flag.String("name", os.Getenv("OPERATOR_NAME"), "the ClusterOperator to own (default $OPERATOR_NAME)")
	resync := flag.Duration("resync", 0, "sync this often without being told of a change (0: only on changes; with --careless: 60s)")
	careless := flag.Bool("careless", false, "act only on the resync, not when told of a change (fails seed 000's 30s answer budget)")
	operand := flag.String("operand", "", "a YAML or JSON file listing the conditions the operand reports, read at every sync (default: all healthy)")
	flag.Parse()
	if *name == "" {
		fmt.Fprintln(os.Stderr, "staleoperator: give the ClusterOperator's name with --name or OPERATOR_NAME")
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(*name, staleoperator.Options{Resync: *resync, Careless: *careless, Operand: fromFile(*operand)}); err != nil {
		fmt.Fprintln(os.Stderr, "staleoperator:", err)
		os.Exit(1)
	}
}

func run(name string, opts staleoperator.Options) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := staleoperator.NewManager(cfg, name, opts)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// fromFile reads the operand's conditions from path at every sync; "" is a
// healthy operand.
func fromFile(path string) func(context.Context) ([]configv1.ClusterOperatorStatusCondition, error) {
	if path == "" {
		return nil
	}
	return func(context.Context) ([]configv1.ClusterOperatorStatusCondition, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		var conds []configv1.ClusterOperatorStatusCondition
		if err := yaml.UnmarshalStrict(data, &conds); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return conds, nil
	}
}
