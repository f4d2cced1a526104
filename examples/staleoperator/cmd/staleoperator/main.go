// Command staleoperator runs the example operator of package staleoperator
// on the wall clock against the cluster of --kubeconfig (or $KUBECONFIG, or
// in-cluster).
//
//	staleoperator --name etcd                          # watches its ClusterOperator, answers at once
//	staleoperator --name etcd --careless --resync 60s  # looks only every 60s
//	staleoperator --name etcd --bug edge               # a planted bug (--help lists them)
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

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
	bug := flag.String("bug", "", "plant a bug that only a perturbation finds (default: none):"+bugs())
	flag.Parse()
	if *name == "" {
		fmt.Fprintln(os.Stderr, "staleoperator: give the ClusterOperator's name with --name or OPERATOR_NAME")
		os.Exit(2)
	}
	if err := staleoperator.CheckBug(*bug); err != nil {
		fmt.Fprintln(os.Stderr, "staleoperator: --bug:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(*name, staleoperator.Options{Resync: *resync, Careless: *careless, Bug: *bug, Operand: fromFile(*operand)}); err != nil {
		fmt.Fprintln(os.Stderr, "staleoperator:", err)
		os.Exit(1)
	}
}

// bugs lists the planted bugs for --help, one a line.
func bugs() string {
	var b strings.Builder
	for _, x := range staleoperator.Bugs {
		fmt.Fprintf(&b, "\n  %s: %s", x.Name, x.Summary)
	}
	return b.String()
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
