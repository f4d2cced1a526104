package certify

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync/atomic"

	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/reports"
)

// Server is opcert's own API server (kube-apiserver and etcd under envtest),
// started once and shared by every run given its Config: one start-up
// (about 5 s) for a whole test package.
type Server struct{ w *apiserver.Server }

// StartServer starts opcert's API server. It needs the envtest binaries:
// KUBEBUILDER_ASSETS, or opcert's cache (`make envtest` in the opcert source
// tree builds them). Progress, if not nil, shows a first build's progress.
// Its processes die with the test binary, even if it is killed.
func StartServer(ctx context.Context, progress io.Writer) (*Server, error) {
	w, err := apiserver.Start(ctx, apiserver.Options{Progress: progress})
	if err != nil {
		return nil, fmt.Errorf("certify: starting opcert's API server (it needs kube-apiserver and etcd: set KUBEBUILDER_ASSETS, "+
			"or run `make envtest` in the opcert source tree; or give Options.Config an API server you run): %w", err)
	}
	return &Server{w: w}, nil
}

// Config is the server's rest.Config, for Options.Config.
func (s *Server) Config() *rest.Config { return s.w.Config }

// Stop stops the server and removes its files.
func (s *Server) Stop() error { return s.w.Stop() }

// api is the API server of one Run or Describe: an attached one, or opcert's
// own started for it.
type api struct {
	client client.Client
	env    reports.Environment
	own    *Server // stopped by close, if certify started it
	died   <-chan struct{}
	cause  func() error
	host   string
}

func connect(ctx context.Context, o Options) (*api, error) {
	if o.Config == nil {
		srv, err := StartServer(ctx, o.Progress)
		if err != nil {
			return nil, err
		}
		w := srv.w
		return &api{client: w.Client, own: srv, died: w.Died(), cause: w.Cause, host: w.Config.Host,
			env: reports.Environment{KubeVersion: w.KubeVersion, EtcdVersion: w.EtcdVersion, Assets: w.Assets, Startup: w.Startup}}, nil
	}
	cfg := o.Config()
	if cfg == nil {
		return nil, fmt.Errorf("certify: Options.Config returned no rest.Config (is the API server started yet?)")
	}
	c, err := apiserver.Attach(cfg)
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	a := &api{client: c, host: cfg.Host}
	if dc, err := discovery.NewDiscoveryClientForConfig(cfg); err == nil {
		if v, err := dc.ServerVersion(); err == nil {
			a.env.KubeVersion = v.GitVersion
		}
	}
	return a, nil
}

func (a *api) close() {
	if a.own != nil {
		_ = a.own.Stop()
	}
}

// watch returns a context of ctx that is cancelled, with the cause the
// runner reads as the environment's fault, if opcert's own server dies.
func (a *api) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if a.died != nil {
		go func() {
			select {
			case <-a.died:
				cancel(fmt.Errorf("%w: %v", conformance.ErrEnvironment, a.cause()))
			case <-ctx.Done():
			}
		}()
	}
	return ctx, func() { cancel(nil) }
}

// runs numbers the runs of this process, so that their objects keep apart
// on a server that outlives one call (a team's envtest, a shared Server).
var runs atomic.Int64

// prefix is a run's name prefix on the API server: short, since a
// namespace name (63 characters) carries it too.
func prefix() string {
	return "c" + strconv.FormatInt(int64(os.Getpid()), 36) + "-" + strconv.FormatInt(runs.Add(1), 36) + "-"
}
