package main

import (
	"context"
	"fmt"
	"io"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
)

// target is what opcert run plays its runs on: its own API server, or a
// cluster (cluster mode, cluster.go).
type target struct {
	api client.Client
	env reports.Environment
	// options completes the options of the run of plan i: its prefix, and
	// its host or cluster.
	options func(i int, o conformance.Options) conformance.Options
	// close stops the API server, or cleans up the cluster.
	close func()
}

// connect starts opcert's API server, or reaches the cluster of
// --kubeconfig, and returns it with a context that ends if it dies.
func (o *runOptions) connect(parent context.Context, stderr io.Writer, plans []plan) (*target, context.Context, error) {
	if o.cluster.on() {
		return o.cluster.connect(parent, stderr, plans, o.timeScale)
	}
	w, ctx, stop, err := startWorld(parent, stderr, o.apiPort)
	if err != nil {
		return nil, nil, err
	}
	removeKubeconfig := func() {}
	if o.kubeconfigOut != "" {
		if removeKubeconfig, err = writeKubeconfigOut(w, o.kubeconfigOut); err != nil {
			w.Stop()
			stop(nil)
			return nil, nil, err
		}
		fmt.Fprintf(stderr, "opcert: a kubeconfig of the API server is in %s until the run ends\n", o.kubeconfigOut)
	}
	return &target{
		api: w.Client,
		env: environment(w),
		options: func(i int, opts conformance.Options) conformance.Options {
			opts.Prefix, opts.Dir, opts.Host = fmt.Sprintf("r%02d-", i+1), w.Dir(), w
			return opts
		},
		close: func() {
			removeKubeconfig()
			w.Stop()
			stop(nil)
		},
	}, ctx, nil
}
