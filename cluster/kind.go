package cluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	kind "sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kindcmd "sigs.k8s.io/kind/pkg/cmd"

	"github.com/opcert/opcert/apiserver"
)

// Kind clusters for nightly CI (opcert kind up|down), through the
// sigs.k8s.io/kind library: a cluster whose nodes are containers of a
// container runtime on this machine.

// runtimes are the container runtimes kind can create nodes with, in the
// order it prefers them.
var runtimes = []struct {
	name   string
	option func() kind.ProviderOption
}{
	{"docker", kind.ProviderWithDocker},
	{"podman", kind.ProviderWithPodman},
	{"nerdctl", func() kind.ProviderOption { return kind.ProviderWithNerdctl("") }},
}

// probeTimeout bounds asking a runtime whether its engine answers.
const probeTimeout = 15 * time.Second

// NoRuntimeError is the error of a machine without a usable container
// runtime: kind cannot create a node there.
type NoRuntimeError struct {
	// Found are the runtimes whose command exists, with why each cannot
	// be used (its engine does not answer).
	Found []string
}

// Error says which runtimes were found and why none can be used.
func (e *NoRuntimeError) Error() string {
	found := "none of docker, podman, nerdctl is on PATH"
	if len(e.Found) > 0 {
		found = "found " + strings.Join(e.Found, "; ")
	}
	return "no container runtime: kind runs a cluster's nodes as containers and needs Docker, Podman or nerdctl with a running engine (" +
		found + "). Install and start one (Docker Engine: https://docs.docker.com/engine/install/, Podman: https://podman.io/docs/installation; " +
		"GitHub's ubuntu runners have Docker), or run against a cluster you have with opcert run --kubeconfig"
}

// waitDelay bounds how long a runtime command's Wait waits for its output
// to close once it is killed or has exited: a child it left behind keeps
// the pipe open.
const waitDelay = 2 * time.Second

// FindRuntime is the first container runtime whose engine answers (its
// `info` succeeds): kind's own detection looks only for the command, and a
// docker client without a daemon would fail later, half way through.
func FindRuntime(ctx context.Context) (string, kind.ProviderOption, error) {
	e := &NoRuntimeError{}
	for _, rt := range runtimes {
		if _, err := exec.LookPath(rt.name); err != nil {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		info := exec.CommandContext(pctx, rt.name, "info")
		info.WaitDelay = waitDelay
		out, err := info.CombinedOutput()
		cancel()
		if err == nil {
			return rt.name, rt.option(), nil
		}
		e.Found = append(e.Found, fmt.Sprintf("%s, whose engine does not answer: %s", rt.name, lastLine(out, err)))
	}
	return "", nil, e
}

// lastLine is the last non-empty line a command printed, or its error.
func lastLine(out []byte, err error) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return err.Error()
}

// KindOptions configure Up and Down.
type KindOptions struct {
	Name string // the cluster's name (kind's default: kind)
	// Kubeconfig is the file the cluster's kubeconfig is written to (and
	// removed from by Down); empty: kind's default ($KUBECONFIG or
	// ~/.kube/config).
	Kubeconfig string
	// Images are loaded into every node (an operator's image, built on
	// this machine).
	Images []string
	// NodeImage is kind's node image (its default when empty).
	NodeImage string
	// Retain keeps the nodes of a creation that failed, to read their
	// logs (kind's --retain).
	Retain bool
	// Config is kind's cluster configuration file (kind's one-node
	// default when empty).
	Config string
}

// Up creates the cluster (or reuses it if it exists, so that a CI job
// can be run again), waits for its control plane, loads the images into
// its nodes and installs opcert's CRDs (the ClusterOperator's, and the
// ClusterVersion's that seed 001's version operator writes), so that
// operators can be deployed and opcert run --kubeconfig can play them.
func Up(ctx context.Context, o KindOptions) error {
	rt, option, err := FindRuntime(ctx)
	if err != nil {
		return err
	}
	p := kind.NewProvider(option, kind.ProviderWithLogger(kindcmd.NewLogger()))
	have, err := p.List()
	if err != nil {
		return fmt.Errorf("listing kind clusters with %s: %w", rt, err)
	}
	if !slices.Contains(have, o.Name) {
		opts := []kind.CreateOption{kind.CreateWithWaitForReady(5 * time.Minute), kind.CreateWithKubeconfigPath(o.Kubeconfig),
			kind.CreateWithDisplayUsage(false), kind.CreateWithDisplaySalutation(false)}
		if o.NodeImage != "" {
			opts = append(opts, kind.CreateWithNodeImage(o.NodeImage))
		}
		if o.Retain {
			opts = append(opts, kind.CreateWithRetain(true))
		}
		if o.Config != "" {
			opts = append(opts, kind.CreateWithConfigFile(o.Config))
		}
		if err := p.Create(o.Name, opts...); err != nil {
			return fmt.Errorf("creating kind cluster %s with %s: %w", o.Name, rt, err)
		}
	} else if err := p.ExportKubeConfig(o.Name, o.Kubeconfig, false); err != nil {
		return err
	}
	for _, img := range o.Images {
		if err := load(ctx, p, rt, o.Name, img); err != nil {
			return err
		}
	}
	kc, err := p.KubeConfig(o.Name, false)
	if err != nil {
		return err
	}
	cfg, err := configFrom([]byte(kc))
	if err != nil {
		return err
	}
	if _, err := apiserver.Attach(cfg); err != nil {
		return err
	}
	if err := controllersRunning(ctx, cfg); err != nil {
		return err
	}
	return serviceRouted(ctx, p, o.Name)
}

// serviceRouted waits until every node routes the kubernetes Service's
// address to the API server (kube-proxy's rules for default/kubernetes are
// in its NAT table): a pod started before that, as an operator deployed
// right after kind up is, cannot reach the API server, times out and is
// restarted half a minute later.
func serviceRouted(ctx context.Context, p *kind.Provider, name string) error {
	nodes, err := p.ListInternalNodes(name)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		err := settled(ctx, "node "+n.String()+" routing the kubernetes Service (kube-proxy's NAT rules)", func(ctx context.Context) (bool, error) {
			var out strings.Builder
			err := n.CommandContext(ctx, "iptables-save", "-t", "nat").SetStdout(&out).Run()
			return err == nil && strings.Contains(out.String(), "default/kubernetes:https"), err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// settleTimeout bounds each wait for a new cluster to settle.
const settleTimeout = 2 * time.Minute

// controllersRunning waits until the kube-controller-manager and the
// kube-scheduler hold their leader leases: kind calls a cluster ready when
// its node is, seconds before its controllers run, and an operator a run
// scales up in those seconds would get no pod (a run would judge nothing).
func controllersRunning(ctx context.Context, cfg *rest.Config) error {
	scheme := runtime.NewScheme()
	if err := coordinationv1.AddToScheme(scheme); err != nil {
		return err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return err
	}
	for _, name := range []string{"kube-controller-manager", "kube-scheduler"} {
		err := settled(ctx, "the cluster's "+name+" holding its lease", func(ctx context.Context) (bool, error) {
			lease := &coordinationv1.Lease{}
			err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: name}, lease)
			return err == nil && ptr.Deref(lease.Spec.HolderIdentity, "") != "", err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// settled asks done every half second until it says so, for at most
// settleTimeout: the cluster is real, and settles in wall time.
func settled(ctx context.Context, what string, done func(context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	for {
		ok, err := done(ctx)
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waited %s for %s (last error: %v)", settleTimeout, what, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// load saves img from the runtime to an archive and imports it into every
// node of the cluster (what kind load docker-image does, for any runtime).
func load(ctx context.Context, p *kind.Provider, rt, name, img string) error {
	dir, err := os.MkdirTemp("", "opcert-kind-image-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	tar := filepath.Join(dir, "image.tar")
	save := exec.CommandContext(ctx, rt, "save", "-o", tar, img)
	save.WaitDelay = waitDelay
	if out, err := save.CombinedOutput(); err != nil {
		return fmt.Errorf("--image %s: %s save: %s", img, rt, lastLine(out, err))
	}
	nodes, err := p.ListInternalNodes(name)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		f, err := os.Open(tar)
		if err != nil {
			return err
		}
		err = nodeutils.LoadImageArchive(n, f)
		f.Close()
		if err != nil {
			return fmt.Errorf("--image %s: loading into node %s: %w", img, n.String(), err)
		}
	}
	return nil
}

// Down deletes the cluster and its entry in the kubeconfig.
func Down(ctx context.Context, o KindOptions) error {
	rt, option, err := FindRuntime(ctx)
	if err != nil {
		return err
	}
	p := kind.NewProvider(option, kind.ProviderWithLogger(kindcmd.NewLogger()))
	if err := p.Delete(o.Name, o.Kubeconfig); err != nil {
		return fmt.Errorf("deleting kind cluster %s with %s: %w", o.Name, rt, err)
	}
	return nil
}

// IsNoRuntime tells whether err is a machine without a container runtime.
func IsNoRuntime(err error) bool {
	var e *NoRuntimeError
	return errors.As(err, &e)
}
