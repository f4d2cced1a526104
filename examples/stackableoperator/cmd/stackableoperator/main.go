// Command stackableoperator runs the example operator of package
// stackableoperator against the cluster of --kubeconfig ($KUBECONFIG),
// or the one it runs in. Its namespaces default to $OPCERT_NAMESPACES,
// which opcert's process mode sets, so that opcert can run it with no
// argument, or as
//
//	stackableoperator --namespaces {namespaces}
//
// With no namespace it watches every namespace (cluster mode: opcert
// creates the run's namespaces as it starts). SIGTERM or SIGINT stops it.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/opcert/opcert/examples/stackableoperator"
)

func main() {
	kubeconfig := flag.String("kubeconfig", os.Getenv("KUBECONFIG"), "the kubeconfig of the cluster (default $KUBECONFIG; none: the cluster it runs in)")
	namespaces := flag.String("namespaces", os.Getenv("OPCERT_NAMESPACES"), "the namespaces of its SampleClusters, comma separated; none: every namespace (default $OPCERT_NAMESPACES)")
	resync := flag.Duration("resync", time.Minute, "how often every cluster is reconciled again though nothing changed")
	workers := flag.Int("workers", 4, "clusters reconciled in parallel")
	ignoreUnknown := flag.Bool("ignore-unknown", false, "careless: take a pod in phase Unknown for a running one (ADR027 makes the cluster Available Unknown then)")
	ignorePause := flag.Bool("ignore-pause", false, "careless: reconcile a paused cluster's workloads (STACKABLE-005 fails it)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	opts := stackableoperator.Options{Namespaces: split(*namespaces), Resync: *resync, Workers: *workers, IgnoreUnknown: *ignoreUnknown, IgnorePause: *ignorePause, Log: log}
	if err := run(*kubeconfig, opts); err != nil {
		fmt.Fprintln(os.Stderr, "stackableoperator:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, opts stackableoperator.Options) error {
	cfg, err := config(kubeconfig)
	if err != nil {
		return err
	}
	// A burst of pod changes over many clusters is many status writes:
	// client-go's default of 5 per second would delay them by seconds.
	cfg.QPS, cfg.Burst = 100, 200
	op, err := stackableoperator.New(cfg, opts)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return op.Run(ctx)
}

func config(kubeconfig string) (*rest.Config, error) {
	if kubeconfig == "" {
		return rest.InClusterConfig()
	}
	return clientcmd.BuildConfigFromFlags("", kubeconfig)
}

// split reads a comma-separated list, blanks left out.
func split(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
