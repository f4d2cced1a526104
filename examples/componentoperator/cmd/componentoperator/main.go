// Command componentoperator runs the example operator of package
// componentoperator on the wall clock against the cluster of $KUBECONFIG
// (or --kubeconfig, or in-cluster). Each flag defaults to the variable
// opcert's process mode sets, so that opcert can run it with no argument:
//
//	componentoperator --name etcd --namespace etcd --version 4.0.1 \
//	    --operands Deployment/server=3,DaemonSet/agent --nodes master-0,master-1
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/opcert/opcert/examples/componentoperator"
	"github.com/opcert/opcert/reference/component"
)

func main() {
	name := flag.String("name", os.Getenv("OPCERT_NAME"), "the ClusterOperator to report (default $OPCERT_NAME)")
	namespace := flag.String("namespace", os.Getenv("OPCERT_NAMESPACE"), "the operands' namespace (default $OPCERT_NAMESPACE)")
	version := flag.String("version", os.Getenv("OPCERT_VERSION"), "the version it runs and rolls out (default $OPCERT_VERSION)")
	operands := flag.String("operands", os.Getenv("OPCERT_OPERANDS"), "what it rolls out: Deployment/NAME=REPLICAS,DaemonSet/NAME,... (default $OPCERT_OPERANDS)")
	nodes := flag.String("nodes", os.Getenv("OPCERT_NODES"), "the nodes a DaemonSet runs on, comma separated (default $OPCERT_NODES)")
	readyAfter := flag.Duration("ready-after", envDuration("OPCERT_READY_AFTER"), "passed on to opcert's simulated pods: how long they take to get ready (default $OPCERT_READY_AFTER)")
	stuckAfter := flag.Duration("stuck-after", scaled(10*time.Minute, os.Getenv("OPCERT_TIME_SCALE")), "how long a rollout may stall before Degraded (default 10m times $OPCERT_TIME_SCALE)")
	flag.Parse()
	ops, err := componentoperator.ParseOperands(*operands)
	if err == nil && (*name == "" || *namespace == "" || *version == "") {
		err = fmt.Errorf("give --name, --namespace and --version (or OPCERT_NAME, OPCERT_NAMESPACE, OPCERT_VERSION)")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "componentoperator:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	opts := component.Options{Name: *name, Namespace: *namespace, Version: *version, Operands: ops,
		Nodes: split(*nodes), ReadyAfter: *readyAfter, StuckAfter: *stuckAfter}
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "componentoperator:", err)
		os.Exit(1)
	}
}

func run(opts component.Options) error {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := componentoperator.NewManager(cfg, opts)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

// envDuration is the duration in the variable, 0 when unset or unreadable.
func envDuration(key string) time.Duration {
	d, _ := time.ParseDuration(os.Getenv(key))
	return d
}

// scaled is d times scale, d when scale is unset or unreadable.
func scaled(d time.Duration, scale string) time.Duration {
	f, err := strconv.ParseFloat(scale, 64)
	if err != nil || f <= 0 {
		return d
	}
	return time.Duration(float64(d) * f)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
