package apiserver

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opcert/opcert/fixtures"
	"github.com/opcert/opcert/sim/timeline"
)

// Options configure Start.
type Options struct {
	// Port pins the API server's port; 0 picks a free one.
	Port int
	// StartTimeout bounds the start-up of etcd and the API server
	// together (default startupLimit).
	StartTimeout time.Duration
	// Progress receives what a newcomer should see while assets build.
	Progress io.Writer
}

// Server is a running API server.
type Server struct {
	plane *envtest.ControlPlane
	dir   string // run directory (procs.go)
	logs  [2]*tail
	// quit stops the watch; died is closed, and cause set, when the API
	// server or etcd stops serving during the Server's life.
	quit     chan struct{}
	stopOnce sync.Once
	died     chan struct{}
	cause    error
	audit    *audit // who made the writes of the processes opcert starts (audit.go)
	// Config talks to the API server with client-side rate limiting off:
	// the server is the floor, the harness must not add a ceiling.
	Config *rest.Config
	// Scheme knows the kinds the run's clients encode and decode.
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

// types are the Go types of the kinds opcert's worlds hold: the core and
// apps kinds every mechanism's world may use, and what mechanisms add with
// RegisterTypes.
var (
	typesMu sync.Mutex
	types   = []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, configv1.Install}
)

// RegisterTypes adds the Go types of a mechanism's kinds to every Server's
// scheme (call it from the mechanism's init), so that its actors may use
// typed objects; kinds without Go types are read as unstructured.
func RegisterTypes(add func(*runtime.Scheme) error) {
	typesMu.Lock()
	defer typesMu.Unlock()
	types = append(types, add)
}

// Scheme returns the types opcert's worlds hold.
func Scheme() *runtime.Scheme {
	typesMu.Lock()
	defer typesMu.Unlock()
	s := runtime.NewScheme()
	for _, add := range types {
		if err := add(s); err != nil {
			panic(err) // the schemes are static; this cannot fail at run time
		}
	}
	return s
}

// Start finds (or builds) the binaries and starts the API server with the
// fixtures' CRDs installed. Its children die with this process on every exit
// path (see launch.go); ctx being cancelled stops a start-up at once.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("API server port %d is out of range: give 1 to 65535, or 0 for any free port", opts.Port)
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
	sweep()
	w := &Server{Assets: assets, Scheme: Scheme(), quit: make(chan struct{}), died: make(chan struct{})}
	if w.dir, err = newRunDir(); err != nil {
		return nil, err
	}
	live.Store(w.dir, true)
	elapsed := stopwatch()
	limit := opts.StartTimeout
	if limit <= 0 {
		limit = startupLimit
	}
	cfg, err := w.start(ctx, crds, opts.Port, limit)
	if err != nil {
		_ = killAndRemove(w.dir)
		live.Delete(w.dir)
		w.closeAudit()
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, 0
	w.Config = cfg
	if w.Client, err = client.New(cfg, client.Options{Scheme: w.Scheme}); err == nil {
		err = w.warm(ctx)
	}
	if err != nil {
		_ = w.Stop()
		return nil, fmt.Errorf("API server started but does not serve ClusterOperators: %w", err)
	}
	w.Startup = elapsed()
	w.KubeVersion = version(ctx, filepath.Join(assets, "kube-apiserver"), "--version")
	w.EtcdVersion = version(ctx, filepath.Join(assets, "etcd"), "--version")
	go w.watch()
	return w, nil
}

// Dir is the Server's run directory (launcher links, pids, etcd data,
// certificates), removed by Stop.
func (w *Server) Dir() string { return w.dir }

// version returns the first line a binary prints for its version flag.
func version(ctx context.Context, bin string, flag string) string {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, flag)
	boundWait(cmd)
	out, err := cmd.Output()
	if err != nil {
		return "unknown"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func portFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("API server port %d is in use: choose another with --api-port, or 0 for any free port", port)
	}
	return l.Close()
}

// warm makes the first writes of each kind here, in the start-up figure,
// rather than in the first scenario's: the client's discovery and the
// server's first use of a CRD's storage cost about two seconds.
func (w *Server) warm(ctx context.Context) error {
	co := &configv1.ClusterOperator{ObjectMeta: metav1.ObjectMeta{Name: "opcert-warm-up"}}
	if err := w.Client.Create(ctx, co); err != nil {
		return err
	}
	co.Status.Conditions = []configv1.ClusterOperatorStatusCondition{{
		Type: configv1.OperatorAvailable, Status: configv1.ConditionTrue, Reason: "WarmUp", LastTransitionTime: metav1.NewTime(timeline.Epoch),
	}}
	if err := w.Client.Status().Update(ctx, co); err != nil {
		return err
	}
	return w.Client.Delete(ctx, co)
}
