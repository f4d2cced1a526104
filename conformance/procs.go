package conformance

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/sim/timeline"
)

// Host is the API server a real-time run starts processes against
// (apiserver implements it): it gives each process a user of its own.
type Host interface {
	// AddUser provisions a user and returns a kubeconfig for it whose
	// server is server (host:port) when not empty.
	AddUser(name, server string) ([]byte, *rest.Config, error)
	// RESTConfig is the harness's own access to the API server.
	RESTConfig() *rest.Config
	// Writer names the user whose write left resourceVersion rv, if a
	// user AddUser provisioned made it, waiting up to within for the API
	// server to say (its audit); an error otherwise.
	Writer(ctx context.Context, rv string, within time.Duration) (string, error)
}

// userPrefix begins the name of each instance's user.
const userPrefix = "opcert:"

// auditWait bounds the wait for the API server's word on who made a
// write: its audit event is sent while the write is served, so it is
// there within milliseconds of the watch event, or not at all; on two
// busy cores (a test suite's packages side by side) it has trailed the
// watch by more than two seconds, and a write left unnamed is put down to
// its field manager, not to the process that made it; 5s was exceeded
// too (stackable-load at 0.005 in make test, two writes unnamed). The
// wait costs nothing when the event comes, as it does for every write
// the API server serves.
const auditWait = 15 * time.Second

// Processes starts, cuts off and kills the executables of a real-time run
// (process mode), one per instance of a role, and says at the end how each
// ended. Each instance has its own user (the same across restarts), its
// own proxy in front of the API server, and its output in
// <dir>/<instance>.log. Its kubeconfig, which holds its user's client key,
// is kept apart from the output, which goes into reports: in a directory
// of its own (0700, each file 0600) inside the run directory, which Close
// removes, and with it anything that removes the run directory (a second
// signal, the sweep after a SIGKILL).
type Processes struct {
	host Host
	dir  string
	keys string // the kubeconfigs' directory

	mu    sync.Mutex
	procs map[string]*instance
	// crashes are the crashes armed for each instance of a role started
	// from now (CrashEach), by role.
	crashes map[string]crashPlan
}

// crashPlan is a crash armed on a role's instances: after each one's k-th
// write, once per instance.
type crashPlan struct {
	actor string // "": every instance of the role
	k     int
	crash func(name string)
	armed map[string]bool
}

type instance struct {
	role, name string
	cmd        []string
	kubeconfig string
	proxy      *process.Proxy
	proc       *process.Proc
	endings    []string // of earlier processes of the instance
	unasked    int      // of those, how many ended on their own
}

// ended records how the instance's process, which has ended, did, and
// forgets it.
func (in *instance) ended() {
	if !in.proc.Asked() {
		in.unasked++
	}
	in.endings, in.proc = append(in.endings, in.proc.Ending()), nil
}

// NewProcesses keeps the instances' logs in dir, and their kubeconfigs in
// a new directory inside runDir.
func NewProcesses(host Host, dir, runDir string) (*Processes, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	keys, err := os.MkdirTemp(runDir, "kubeconfigs-") // 0700
	if err != nil {
		return nil, err
	}
	return &Processes{host: host, dir: dir, keys: keys, procs: map[string]*instance{}}, nil
}

// fileName turns an instance name ("operator/etcd") into a file name.
func fileName(instance string) string { return strings.ReplaceAll(instance, "/", "-") }

// Start starts (or starts again) the process of an instance: cmd with
// {name} and {role} replaced, KUBECONFIG its own, OPCERT_NAME and
// OPCERT_ROLE set.
func (p *Processes) Start(name, role, object string, cmd process.Command) error {
	return p.StartWith(name, role, map[string]string{"name": object}, cmd)
}

// StartWith is Start with the placeholders of vars: each {key} of cmd is
// replaced by vars[key] and OPCERT_<KEY> set to it (the key in upper snake
// case: operatorNamespace is OPCERT_OPERATOR_NAMESPACE); vars["name"] is
// the object the instance owns. {role} and OPCERT_ROLE are role.
func (p *Processes) StartWith(name, role string, vars map[string]string, cmd process.Command) error {
	object := vars["name"]
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.procs[name]
	if in == nil {
		// The process reaches the API server through its proxy, which
		// forwards as its user (process.Proxy: the audit names the user).
		_, user, err := p.host.AddUser(userPrefix+name, "")
		if err != nil {
			return err
		}
		user = rest.CopyConfig(user)
		user.Host = p.host.RESTConfig().Host
		proxy, err := process.NewProxy(user)
		if err != nil {
			return err
		}
		kc, err := proxy.Kubeconfig(userPrefix + name)
		if err != nil {
			proxy.Close()
			return err
		}
		path := filepath.Join(p.keys, fileName(name)+".kubeconfig")
		if err := os.WriteFile(path, kc, 0o600); err != nil {
			proxy.Close()
			return err
		}
		in = &instance{role: role, name: object, kubeconfig: path, proxy: proxy}
		p.procs[name] = in
	}
	if in.proc != nil {
		select {
		case <-in.proc.Done():
			in.ended()
		default:
			return fmt.Errorf("%s is already running", name)
		}
	}
	vars = maps.Clone(vars)
	vars["role"] = role
	in.cmd = cmd.For(vars)
	for _, w := range in.cmd {
		// Role.Placeholders promised the key: a mechanism that declares
		// one it does not give would start its operator without it.
		if p := placeholder.FindString(w); p != "" {
			return fmt.Errorf("%s: the placeholder %s was accepted but is not given to %s processes", name, p, role)
		}
	}
	env := []string{"KUBECONFIG=" + in.kubeconfig}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, envName(k)+"="+vars[k])
	}
	in.proxy.Restore()
	if plan, ok := p.crashes[role]; ok {
		if err := arm(role, plan, name, in); err != nil {
			return err
		}
	}
	proc, err := process.Start(process.Options{Argv: in.cmd, Env: env,
		Log: filepath.Join(p.dir, fileName(name)+".log")})
	if err != nil {
		return err
	}
	in.proc = proc
	return nil
}

// envName is the environment variable of a placeholder: OPCERT_ and the
// key in upper snake case.
func envName(key string) string {
	var b strings.Builder
	b.WriteString("OPCERT_")
	for i, r := range key {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// Running tells whether the instance's process runs.
func (p *Processes) Running(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.procs[name]
	if in == nil || in.proc == nil {
		return false
	}
	select {
	case <-in.proc.Done():
		return false
	default:
		return true
	}
}

// Reap forgets the instance's process once it has ended by itself, as a
// command run once per piece of work is meant to (a node's installer):
// how it ended is kept for the report, not counted as ending unasked. It
// tells whether it exited with status 0, and whether there was an ended
// process to reap (none while it runs).
func (p *Processes) Reap(name string) (succeeded, ended bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.procs[name]
	if in == nil || in.proc == nil {
		return false, false
	}
	select {
	case <-in.proc.Done():
	default:
		return false, false
	}
	succeeded = in.proc.Succeeded()
	in.endings, in.proc = append(in.endings, in.proc.Ending()), nil
	return succeeded, true
}

// Kill kills the instance's process (SIGKILL to its group).
func (p *Processes) Kill(name string) error {
	p.mu.Lock()
	in := p.procs[name]
	p.mu.Unlock()
	if in == nil || in.proc == nil {
		return nil
	}
	err := in.proc.Kill()
	p.mu.Lock()
	in.ended()
	p.mu.Unlock()
	return err
}

// Cut cuts the instance off from the API server (cut) or lets it through
// again; the process lives on.
func (p *Processes) Cut(name string, cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if in := p.procs[name]; in != nil {
		if cut {
			in.proxy.Cut()
		} else {
			in.proxy.Restore()
		}
	}
}

// CrashAfter arms a crash of the instance's process after its k-th
// write from now (process.Proxy.CrashAfter): the proxy cuts it off at
// once and calls crash, in which the caller kills and restarts it (Kill,
// StartWith: the restart lets the new process through).
func (p *Processes) CrashAfter(name string, k int, crash func()) error {
	in, err := p.started(name)
	if err != nil {
		return err
	}
	return in.proxy.CrashAfter(k, crash)
}

// CrashEach arms a crash of every process of role (or of the instance
// actor alone) after its own k-th write from now, those running and those
// first started later (a scenario's crash at its start is armed before
// the world starts them, so that it counts from their first write); each
// instance is armed once: a crash calls crash with the instance's name,
// in which the caller kills and restarts it.
func (p *Processes) CrashEach(role, actor string, k int, crash func(name string)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.crashes == nil {
		p.crashes = map[string]crashPlan{}
	}
	plan := crashPlan{actor: actor, k: k, crash: crash, armed: map[string]bool{}}
	p.crashes[role] = plan
	for name, in := range p.procs {
		if err := arm(role, plan, name, in); err != nil {
			return err
		}
	}
	return nil
}

// arm arms plan on an instance of role it has not armed yet (under mu).
func arm(role string, plan crashPlan, name string, in *instance) error {
	if in.role != role || plan.armed[name] || plan.actor != "" && plan.actor != name {
		return nil
	}
	plan.armed[name] = true
	return in.proxy.CrashAfter(plan.k, func() { plan.crash(name) })
}

// LoseEvents drops the watch events streamed to the instance's process
// (on), or stops and makes its informers list again (off): it then sees
// the state as it is, never the ones in between
// (process.Proxy.LoseEvents).
func (p *Processes) LoseEvents(name string, on bool) error {
	in, err := p.started(name)
	if err != nil {
		return err
	}
	in.proxy.LoseEvents(on)
	return nil
}

// started is the instance name, started at least once.
func (p *Processes) started(name string) (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if in := p.procs[name]; in != nil {
		return in, nil
	}
	return nil, fmt.Errorf("no process was started for %s", name)
}

// stopGrace is how long a process still running at the end of a run has
// to exit on SIGTERM before it is killed: a leader releases its lease, a
// controller-runtime manager drains its workers, in far less.
var stopGrace = 5 * time.Second

// Close stops every process still running, all at once (SIGTERM, up to
// stopGrace, then SIGKILL: process.Proc.Stop), stops the proxies, removes
// the kubeconfigs, and returns what the report says of each instance, by
// name.
func (p *Processes) Close() []reports.Process {
	defer os.RemoveAll(p.keys)
	p.mu.Lock()
	names := slices.Sorted(maps.Keys(p.procs))
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, n := range names {
		p.mu.Lock()
		in, running := p.procs[n], false
		if in.proc != nil {
			select {
			case <-in.proc.Done():
				in.ended()
			default:
				running = true
			}
		}
		p.mu.Unlock()
		if !running {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			how, err := in.proc.Stop(stopGrace)
			if err != nil {
				how += ": " + err.Error()
			}
			p.mu.Lock()
			in.endings, in.proc = append(in.endings, "running at the end of the run, "+how), nil
			p.mu.Unlock()
		}()
	}
	wg.Wait()
	var out []reports.Process
	for _, n := range names {
		p.mu.Lock()
		in := p.procs[n]
		p.mu.Unlock()
		in.proxy.Close()
		shown, _ := redact.Args(in.cmd) // the subject's secrets, counted once in Run.Redacted
		out = append(out, reports.Process{Name: n, Role: in.role, Command: process.Command(shown).String(),
			Log: filepath.Join(p.dir, fileName(n)+".log"), Endings: in.endings, Unasked: in.unasked})
	}
	return out
}

// Attribute puts a write seen on the API server (obj as the write left
// it) down to the instance whose process made it, by the user the API
// server authenticated: e's actor becomes the instance, its role the
// instance's. A write no process made keeps what e says (it is someone
// else's: opcert's own writes are never observed).
func (p *Processes) Attribute(ctx context.Context, obj client.Object, e *timeline.Event) {
	user, err := p.host.Writer(ctx, obj.GetResourceVersion(), auditWait)
	if err != nil {
		return
	}
	name, ok := strings.CutPrefix(user, userPrefix)
	p.mu.Lock()
	in := p.procs[name]
	p.mu.Unlock()
	if ok && in != nil {
		e.Actor, e.Role = name, in.role
	}
}

// RESTConfig is the harness's own access to the API server the processes
// use.
func (p *Processes) RESTConfig() *rest.Config { return p.host.RESTConfig() }
