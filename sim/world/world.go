package world

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opcert/opcert/fixtures"
	"github.com/opcert/opcert/sim"
)

// Options configure Start.
type Options struct {
	// Port pins the API server's port; 0 picks a free one.
	Port int
	// Progress receives what a newcomer should see while assets build.
	Progress io.Writer
}

// World is a running API server.
type World struct {
	env *envtest.Environment
	// Config talks to the API server with client-side rate limiting off:
	// the server is the floor, the harness must not add a ceiling.
	Config *rest.Config
	Scheme *runtime.Scheme
	// Client is a direct (uncached) client.
	Client client.Client
	// Assets is the directory the binaries came from.
	Assets string
	// Startup is how long the API server took to come up.
	Startup time.Duration
	// KubeVersion and EtcdVersion are what the binaries say they are.
	KubeVersion, EtcdVersion string
}

// Scheme returns the types opcert's worlds hold.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, configv1.Install} {
		if err := add(s); err != nil {
			panic(err) // the schemes are static; this cannot fail at run time
		}
	}
	return s
}

// Start finds (or builds) the binaries and starts the API server with the
// fixtures' CRDs installed.
func Start(ctx context.Context, opts Options) (*World, error) {
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Port != 0 {
		if err := portFree(opts.Port); err != nil {
			return nil, err
		}
	}
	assets, err := FindAssets(ctx, opts.Progress)
	if err != nil {
		return nil, err
	}
	crds, err := fixtures.CRDs()
	if err != nil {
		return nil, err
	}
	w := &World{Assets: assets, Scheme: Scheme()}
	w.env = &envtest.Environment{BinaryAssetsDirectory: assets, CRDs: crds, Scheme: w.Scheme, ErrorIfCRDPathMissing: true}
	if opts.Port != 0 {
		w.env.ControlPlane.GetAPIServer().Port = strconv.Itoa(opts.Port)
	}
	elapsed := stopwatch()
	cfg, err := w.env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting the API server from %s: %w", assets, err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	w.Config = cfg
	if w.Client, err = client.New(cfg, client.Options{Scheme: w.Scheme}); err != nil {
		_ = w.env.Stop()
		return nil, err
	}
	if err := w.warm(ctx); err != nil {
		_ = w.env.Stop()
		return nil, fmt.Errorf("API server started but does not serve ClusterOperators: %w", err)
	}
	w.Startup = elapsed()
	w.KubeVersion = version(filepath.Join(assets, "kube-apiserver"), "--version")
	w.EtcdVersion = version(filepath.Join(assets, "etcd"), "--version")
	return w, nil
}

// Stop stops the API server and etcd.
func (w *World) Stop() error { return w.env.Stop() }

func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("API server port %d is in use: choose another with --api-port, or 0 for any free port", port)
	}
	return l.Close()
}

// version returns the first line a binary prints for its version flag.
func version(bin string, flag string) string {
	out, err := exec.Command(bin, flag).Output()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// warm makes the first writes of each kind here, in the start-up figure,
// rather than in the first scenario's: the client's discovery and the
// server's first use of a CRD's storage cost about two seconds.
func (w *World) warm(ctx context.Context) error {
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "opcert-warm-up"}}
	if err := w.Client.Create(ctx, co); err != nil {
		return err
	}
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{
		Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "WarmUp", LastTransitionTime: metav1.NewTime(sim.Epoch),
	}}
	if err := w.Client.Status().Update(ctx, co); err != nil {
		return err
	}
	return w.Client.Delete(ctx, co)
}
