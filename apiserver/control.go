package apiserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/opcert/opcert/sim"
)

// Bounds on the control plane's life: every wait here ends.
const (
	startTimeout = 60 * time.Second
	stopTimeout  = 10 * time.Second
	// startupLimit bounds the whole start-up (Options.StartTimeout):
	// envtest tries a control plane that does not get ready five times,
	// startTimeout each, which took 303 s and ended in "exit status 1".
	startupLimit = 90 * time.Second
	// A dead process is seen within checkEvery; an API server that stops
	// answering within unhealthyFor (plus one check's timeout).
	checkEvery   = time.Second
	unhealthyFor = 10 * time.Second
)

// ErrInterrupted means the start-up was cancelled.
var ErrInterrupted = errors.New("interrupted while starting the API server")

// launchMu keeps the launcher's variables, which children inherit from this
// process's environment, steady while one Server's children start.
var launchMu sync.Mutex

// start runs envtest's control plane with its binaries behind the
// launcher and their directories inside the run directory, and installs
// the CRDs.
//
// Not envtest.Environment: its Start always makes a webhook serving key in
// $TMPDIR/envtest-serving-certs-*, outside the run directory, which a
// SIGKILL or SIGQUIT of opcert would leave behind and nothing sweeps;
// opcert serves no webhook. Every file of the control plane, its keys
// included, is in the run directory (0700), which Stop and Abort remove
// and the next Start sweeps.
func (w *Server) start(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition, port int, limit time.Duration) (*rest.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(w.dir, "bin")
	for _, d := range []string{bin, filepath.Join(w.dir, "certs"), filepath.Join(w.dir, "etcd")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	for name := range launched {
		if err := os.Symlink(exe, filepath.Join(bin, name)); err != nil {
			return nil, err
		}
	}
	w.logs = [2]*tail{{}, {}}
	audit, auditArgs, err := startAudit(w.dir)
	if err != nil {
		return nil, err
	}
	w.audit = audit
	w.plane = &envtest.ControlPlane{}
	api := w.plane.GetAPIServer()
	api.StartTimeout, api.StopTimeout = startTimeout, stopTimeout
	api.Path, api.CertDir = filepath.Join(bin, "kube-apiserver"), filepath.Join(w.dir, "certs")
	if port != 0 {
		api.SecureServing.Address, api.SecureServing.Port = "127.0.0.1", strconv.Itoa(port)
	}
	api.Out, api.Err = w.logs[0], w.logs[0]
	for flag, value := range auditArgs {
		api.Configure().Set(flag, value)
	}
	// A list that asks for the latest state (every list of a run's actor)
	// is served by the watch cache only once the cache has caught up,
	// which it learns from a progress request sent every 100ms: each such
	// list waits up to 100ms. Without the cache it is one read of etcd.
	// Pods are what actors list at every look (an operator counting its
	// operand's pods), and mechanisms add the kinds their actors list
	// (ListFromEtcd); the other kinds keep the cache, and their watches
	// its semantics (an expired resourceVersion is 410 Gone at once).
	api.Configure().Set("watch-cache-sizes", watchCacheSizes())
	w.plane.Etcd = &envtest.Etcd{Path: filepath.Join(bin, "etcd"), DataDir: filepath.Join(w.dir, "etcd"),
		Out: w.logs[1], Err: w.logs[1], StartTimeout: startTimeout, StopTimeout: stopTimeout}

	done := make(chan started, 1)
	launchMu.Lock()
	os.Setenv(envAssets, w.Assets)
	os.Setenv(envParent, strconv.Itoa(os.Getpid()))
	os.Setenv(envRunDir, w.dir)
	go func() {
		defer launchMu.Unlock()
		cfg, err := w.startPlane(crds)
		done <- started{cfg, err}
	}()
	select {
	case s := <-done:
		if s.err != nil {
			return nil, fmt.Errorf("starting the API server from %s: %w%s", w.Assets, s.err, w.output())
		}
		return s.cfg, nil
	case <-ctx.Done():
		w.abandonStart(done)
		return nil, ErrInterrupted
	case <-time.After(limit):
		// Which binary is late: the API server starts once etcd is ready.
		late := "etcd"
		if _, ok := processes(w.dir)["kube-apiserver"]; ok {
			late = "kube-apiserver"
		}
		output := w.output()
		w.abandonStart(done)
		return nil, fmt.Errorf("%s (%s) did not get ready within %s; killed%s", late, filepath.Join(w.Assets, late), limit, output)
	}
}

// startTries is how many times startPlane tries: a port picked free may be taken
// before the server binds it (envtest.Environment tries as often).
const startTries = 5

// startPlane starts the control plane, as envtest.Environment.Start does
// without its webhook set-up, and installs the CRDs.
func (w *Server) startPlane(crds []*apiextensionsv1.CustomResourceDefinition) (*rest.Config, error) {
	var err error
	for range startTries {
		if err = w.plane.Start(); err == nil {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("unable to start control plane itself: %w", err)
	}
	admin, err := w.plane.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return nil, fmt.Errorf("unable to provision admin user: %w", err)
	}
	cfg := admin.Config()
	cfg.UserAgent = sim.FieldManager
	if err := defaultNamespace(cfg); err != nil {
		return nil, err
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds, Scheme: w.Scheme, ErrorIfPathMissing: true}); err != nil {
		return nil, fmt.Errorf("unable to install CRDs onto control plane: %w", err)
	}
	return cfg, nil
}

// defaultNamespace waits, up to 5 seconds as envtest does, for the API
// server to have made the default namespace, which scenarios use.
func defaultNamespace(cfg *rest.Config) error {
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		return err
	}
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		return c.Get(ctx, client.ObjectKey{Name: "default"}, &corev1.Namespace{}) == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the default namespace did not appear within 5s: %w", err)
	}
	return nil
}

// abandonStart kills what has started; envtest's Start then returns on
// its own, soon enough not to be waited for long.
func (w *Server) abandonStart(done <-chan started) {
	_ = killAndRemove(w.dir)
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// started is what envtest's Start returned.
type started struct {
	cfg *rest.Config
	err error
}

// output is what the binaries printed last, for a failed start-up's message.
func (w *Server) output() string {
	s := ""
	for i, name := range []string{"kube-apiserver", "etcd"} {
		if t := w.logs[i].String(); t != "" {
			s += fmt.Sprintf("\n%s said (last lines):\n%s", name, t)
		}
	}
	return s
}

// Stop stops the API server and etcd, within stopTimeout, kills whatever is
// left and removes the run directory. It is safe to call more than once.
func (w *Server) Stop() error {
	var err error
	w.stopOnce.Do(func() {
		defer live.Delete(w.dir)
		close(w.quit)
		done := make(chan error, 1)
		go func() { done <- w.plane.Stop() }()
		select {
		case err = <-done:
		case <-time.After(stopTimeout + time.Second):
			err = fmt.Errorf("the API server did not stop within %s; killed", stopTimeout)
		}
		if rmErr := killAndRemove(w.dir); err == nil {
			err = rmErr
		}
		w.closeAudit()
	})
	return err
}

// Died is closed when the API server or etcd stops serving while the Server
// runs; Cause then says what happened.
func (w *Server) Died() <-chan struct{} { return w.died }

// Cause is why the Server died (nil while it lives).
func (w *Server) Cause() error {
	select {
	case <-w.died:
		return w.cause
	default:
		return nil
	}
}

// watch checks that both processes live and that the API server answers,
// until Stop. Wall time passes here by design: it watches real processes.
func (w *Server) watch() {
	dc, err := discovery.NewDiscoveryClientForConfig(w.Config)
	if err != nil {
		return
	}
	rc := dc.RESTClient()
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	healthy := time.Now()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
		}
		for name, p := range processes(w.dir) {
			if !strings.HasSuffix(name, probeSuffix) && !p.running() {
				w.die(fmt.Errorf("%s (pid %d) exited%s", name, p.pid, w.output()))
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*checkEvery)
		err := rc.Get().AbsPath("/livez").Do(ctx).Error()
		cancel()
		if err == nil {
			healthy = time.Now()
		} else if time.Since(healthy) > unhealthyFor {
			w.die(fmt.Errorf("the API server has not answered /livez for %s: %v", unhealthyFor, err))
			return
		}
	}
}

func (w *Server) die(err error) {
	select {
	case <-w.quit:
		return // stopping: processes exit on purpose
	default:
	}
	w.cause = err
	close(w.died)
}

// tail keeps the last bytes a process wrote, for error messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// live are the run directories of the Servers this process has running.
var live sync.Map

// Abort kills the processes of every Server this process runs and removes
// their run directories, for a second Ctrl-C that cannot wait for Stop.
func Abort() {
	live.Range(func(dir, _ any) bool {
		_ = killAndRemove(dir.(string))
		return true
	})
}

// uncached are the resources whose lists a Server's API server serves from
// etcd rather than its watch cache (see start).
var (
	uncachedMu sync.Mutex
	uncached   = []string{"pods"}
)

// ListFromEtcd makes every Server's API server serve the lists of these
// resources ("resource.group": "upgrades.opcert.io") from etcd, without
// the up to 100ms a list for the latest state waits for the watch cache
// to catch up: a mechanism whose actors list a kind at each look registers
// it from its init.
func ListFromEtcd(resources ...string) {
	uncachedMu.Lock()
	defer uncachedMu.Unlock()
	uncached = append(uncached, resources...)
}

// watchCacheSizes is the API server's --watch-cache-sizes: no cache for
// the uncached resources.
func watchCacheSizes() string {
	uncachedMu.Lock()
	defer uncachedMu.Unlock()
	sizes := make([]string, len(uncached))
	for i, r := range uncached {
		sizes[i] = r + "#0"
	}
	return strings.Join(sizes, ",")
}
