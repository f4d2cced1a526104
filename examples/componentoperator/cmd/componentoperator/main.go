// Command componentoperator runs the example component operator of package
// componentoperator against the cluster of $KUBECONFIG (or in-cluster).
// Every flag defaults to the variable opcert's process mode sets, so that
// opcert can start it with no argument:
//
//	opcert run --time-scale 0.01 --subject clusteroperator.operator=exec:./componentoperator
//
// and it runs as well with flags, as a Deployment does
// (examples/componentoperator/deploy.yaml):
//
//	componentoperator --name etcd --namespace etcd --version 4.0.1 \
//	    --operands Deployment/server=3,DaemonSet/agent --nodes master-0,master-1
//
// --careless is the variant that reports the new version as soon as its
// operands' specs ask for it, before their pods run it.
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
)

func main() {
	cfg, err := parse(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "componentoperator:", err)
		os.Exit(2)
	}
	ctrl.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, nil)))
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "componentoperator:", err)
		os.Exit(1)
	}
}

// parse reads the flags, each defaulting to its OPCERT_* variable. Its
// own thresholds are given for real time and multiplied by --time-scale,
// so that a run whose scenario opcert compresses finds the operator as
// quick as its world.
func parse(args []string) (componentoperator.Config, error) {
	fs := flag.NewFlagSet("componentoperator", flag.ContinueOnError)
	env := os.Getenv
	name := fs.String("name", env("OPCERT_NAME"), "the ClusterOperator it reports (default $OPCERT_NAME)")
	namespace := fs.String("namespace", env("OPCERT_NAMESPACE"), "where its operands run (default $OPCERT_NAMESPACE)")
	version := fs.String("version", env("OPCERT_VERSION"), "the version it runs and rolls out (default $OPCERT_VERSION)")
	operands := fs.String("operands", env("OPCERT_OPERANDS"), "what it rolls out, Deployment/NAME=REPLICAS,DaemonSet/NAME (default $OPCERT_OPERANDS)")
	nodes := fs.String("nodes", env("OPCERT_NODES"), "where a DaemonSet must run, comma separated (default $OPCERT_NODES; none: where its controller schedules it)")
	image := fs.String("operand-image", env("OPCERT_OPERAND_IMAGE"), "the image its operands' pods run, loaded on the nodes and never pulled (default $OPCERT_OPERAND_IMAGE; none: a simulated pod's)")
	admin := fs.String("admin-configmap", "", "the ConfigMap, in its namespace, whose upgradeBlocker says what the administrator must fix (default NAME-admin)")
	pace := fs.String("ready-after", env("OPCERT_READY_AFTER"), "written on its operands as opcert.io/ready-after, how long opcert's simulated pods take to get ready (default $OPCERT_READY_AFTER)")
	scale := fs.String("time-scale", env("OPCERT_TIME_SCALE"), "multiplies its thresholds (default $OPCERT_TIME_SCALE, else 1)")
	stall := fs.Duration("stall-after", 10*time.Minute, "how long a rollout may not move before it reports Degraded (times --time-scale)")
	resync := fs.Duration("resync", 10*time.Minute, "how often it looks at everything again (times --time-scale)")
	retry := fs.Duration("retry-after", 30*time.Second, "when it tries again a write the API server refused (times --time-scale)")
	careless := fs.Bool("careless", false, "report the new version as soon as the operands' specs ask for it (the careless variant)")
	if err := fs.Parse(args); err != nil {
		return componentoperator.Config{}, err
	}
	ops, err := componentoperator.ParseOperands(*operands)
	if err != nil {
		return componentoperator.Config{}, err
	}
	factor := 1.0
	if *scale != "" {
		if factor, err = strconv.ParseFloat(*scale, 64); err != nil || !(factor > 0 && factor <= 1) {
			return componentoperator.Config{}, fmt.Errorf("time scale %q: want a number above 0, at most 1", *scale)
		}
	}
	var podPace time.Duration
	if *pace != "" {
		if podPace, err = time.ParseDuration(*pace); err != nil {
			return componentoperator.Config{}, fmt.Errorf("ready-after: %w", err)
		}
	}
	times := func(d time.Duration) time.Duration { return time.Duration(float64(d) * factor) }
	cfg := componentoperator.Config{Name: *name, Namespace: *namespace, Version: *version, Operands: ops,
		Nodes: split(*nodes), OperandImage: *image, AdminConfigMap: *admin, PodPace: podPace,
		StallAfter: times(*stall), Resync: times(*resync), RetryAfter: times(*retry), Careless: *careless}
	return cfg, cfg.Validate()
}

func run(cfg componentoperator.Config) error {
	rc, err := ctrl.GetConfig()
	if err != nil {
		return err
	}
	mgr, err := componentoperator.NewManager(rc, cfg)
	if err != nil {
		return err
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}

func split(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
