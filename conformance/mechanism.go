package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/record"
	"github.com/opcert/opcert/redact"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
)

// Mechanism is one seed's plug-in: its roles and their subjects, its rules,
// and how a scenario's world is built with the chosen subjects.
type Mechanism struct {
	Name  string // the seed's short name, as scenarios name it
	Seed  string // the seed file's number, e.g. "000"
	Roles []Role
	Rules []judge.Rule
	// Build starts the scenario's world with the cast's subjects and
	// returns what carries out its actions. Steps are queued before Build
	// runs; work Build queues at an instant runs after them.
	Build func(ctx context.Context, w *Stage, sc *scenarios.Scenario, cast Cast) (Actions, error)
	// Expects is the kind an expect step reads when it names none.
	Expects schema.GroupVersionKind
	// Estimate is the API calls a scenario costs on the reference, for
	// --dry-run and the warning before a long run.
	Estimate func(sc *scenarios.Scenario) int
	// Recording says what opcert watch records of a live API server for
	// this mechanism, and whose writes play which role (recording.go); nil:
	// the mechanism cannot be recorded.
	Recording *record.Recording
	// WithTolerance is the mechanism judged with d of slack on its
	// deadlines, as a real-time recording needs (the recorder's latency,
	// the API server's second-truncated times); nil: its rules take none.
	WithTolerance func(d time.Duration) *Mechanism
	// Online are the facts the mechanism's rules derive (Facts), readable
	// one event at a time, so that a long timeline is judged without being
	// held (Stream); a mechanism without them is judged on its events,
	// kept in memory.
	Online []judge.Online
	// Scaled is the mechanism with its thresholds multiplied by scale
	// (opcert run --time-scale: a 10m challenge at 0.01 is 6s) and the
	// budgets that judge a subject left as they are; nil: its times cannot
	// be scaled.
	Scaled func(scale float64) *Mechanism
	// Touches lists what a scenario played by cast on a cluster would do
	// to objects opcert did not create (touch.go); nil: the mechanism
	// cannot be played on a cluster (its world is simulated: a node's
	// files). An empty list means the run writes only what it creates.
	Touches func(sc *scenarios.Scenario, cast Cast) []Touch
	// ClusterKinds are the cluster-scoped kinds a scenario's world creates
	// on a cluster (a ClusterOperator, a ClusterVersion, named under the
	// run's prefix); Namespaces under the prefix need no entry. A run on a
	// cluster may create no other cluster-scoped kind (cluster.KindPolicy:
	// a scenario's create step of one is refused before anything is
	// written, unless the user names the kind), and the next run sweeps
	// these kinds for what a killed run left. Every mechanism that can be
	// played on a cluster (Touches) declares what it creates.
	ClusterKinds []schema.GroupKind
	// Namespaces lists the namespaces a scenario's world creates (named
	// under the run's prefix), in which its create steps may place
	// objects besides the namespaces the steps create; nil: none. On a
	// cluster a create step into any other namespace is refused before
	// anything is written.
	Namespaces func(sc *scenarios.Scenario) []string
	// Access lists the rights a scenario played by cast on a cluster needs
	// beyond the ones every run needs (touch.go); nil: none.
	Access func(sc *scenarios.Scenario, cast Cast) []Access
	// Reaction is the reaction bound the rules were built with: how long
	// a subject may take to act on a change it can see (a rollout that
	// completed, a condition that moved) before a rule that asks for the
	// reaction fails. Real operators requeue and resync, so no seed's
	// "then" means "at the same instant"; every report states the bound.
	// Zero: the mechanism judges no reaction (or its seed fixes every
	// deadline).
	Reaction time.Duration
	// WithReaction is the mechanism judged with reaction bound d
	// (opcert's --reaction-bound); nil: it has no reaction to bound.
	WithReaction func(d time.Duration) *Mechanism
	// Cannot says why the mechanism cannot do what a team might expect of
	// it, keyed CannotWatch (Recording is nil) and CannotStream (Online is
	// empty): `opcert mechanisms` prints it, and a capability it lacks
	// without a reason fails the capability table's test.
	Cannot map[string]string
}

// The keys of Mechanism.Cannot.
const (
	// CannotWatch: the mechanism cannot be recorded from a live API server
	// (opcert watch, opcert analyze).
	CannotWatch = "watch"
	// CannotStream: its rules cannot judge a timeline one event at a time,
	// with bounded memory.
	CannotStream = "stream"
)

// Form is a form in which a team brings a subject of its own to a role,
// beyond opcert's subjects (the reference, faithful and broken variants).
type Form string

const (
	// FormLibrary is a team's Go reconciler (Reconciler), or its decision
	// core where the role's world drives one (Core), run by the simulator
	// in virtual time (library mode, package certify).
	FormLibrary Form = "library"
	// FormProcess is an executable (exec:COMMAND, Process) against
	// opcert's API server, in real time (process mode).
	FormProcess Form = "process"
	// FormCluster is a Deployment on a cluster (deployment:NS/NAME,
	// Deployment), in real time (cluster mode).
	FormCluster Form = "cluster"
)

// AllForms are the forms, in the order the capability table shows them.
var AllForms = []Form{FormLibrary, FormProcess, FormCluster}

// Role is a part a subject plays; its first subject is the reference.
type Role struct {
	Name     string
	Subjects []Subject
	// Forms are the forms in which the role takes a team's subject
	// (declared, never inferred from what Build happens to accept): a
	// subject in another form is refused before anything starts, with the
	// role's reason from Cannot.
	Forms []Form
	// Cannot says, for each form the role does not take, why: a form that
	// makes no sense for the role (a simulated node's files on a real
	// cluster), or one not built yet. `opcert mechanisms` prints it.
	Cannot map[Form]string
	// Placeholders are the {keys} an executable's command may hold besides
	// {role} ({name}: the object the instance owns, and what else the
	// mechanism gives its processes); a command holding any other is
	// refused before anything starts, as a misspelled {nmae} would leave
	// the operator without its name.
	Placeholders []string
}

// Subject fills a role: the reference, or a deliberately broken variant
// that proves the rules can fail. Impl is what the mechanism builds the
// role's actor from (its type is the mechanism's own), so that choosing a
// subject is a lookup, not a switch on its name.
type Subject struct {
	Name        string
	Description string
	Impl        any
	// Profile names the other design this subject implements faithfully
	// (e.g. "library-go", what an upstream project shipped), empty for the
	// reference and the broken variants. Such a subject is not a mutant:
	// it departs from the seed on purpose, and may well fail no rule.
	Profile string
	// Faithful marks a faithful variant: written from the seed, not from
	// the reference, and different from it wherever the seed allows
	// (other texts, orders, optional fields left out, a reaction within
	// the bound, the other reading of an ambiguous clause). It is not a
	// mutant: the self-test plays it on every built-in and it must fail
	// no rule, proving the rules accept more than the reference.
	Faithful bool
}

// Mutant tells whether s is a broken variant: neither its role's
// reference (the role's first subject), nor a faithful variant, nor
// another design's subject (Profile).
func (r *Role) Mutant(s Subject) bool {
	return s.Name != r.Subjects[0].Name && !s.Faithful && s.Profile == ""
}

// Cast is the subject chosen for each role of a run.
type Cast map[string]Subject

// Names is the cast as role -> subject name, as reports show it: an
// executable's command with its secrets redacted (Shown).
func (c Cast) Names() map[string]string {
	out := make(map[string]string, len(c))
	for role, s := range c {
		out[role], _ = Shown(s.Name)
	}
	return out
}

// Redacted is how many values Names hid.
func (c Cast) Redacted() int {
	n := 0
	for _, s := range c {
		_, hidden := Shown(s.Name)
		n += hidden
	}
	return n
}

// Stage is what a mechanism builds a scenario's world on.
type Stage struct {
	Sched *sim.Scheduler
	// API is a direct client of the run's API server; actors wrap it with
	// Sched.Client so their writes are recorded.
	API client.Client
	// Dir is where the run may keep files (a simulated node's tree): inside
	// the API server's run directory, so they go with it on every exit and
	// are swept after a SIGKILL. Empty means the system's temporary
	// directory, and the mechanism removes what it made.
	Dir string
	// Processes starts the run's executable subjects (process mode; nil
	// in virtual time).
	Processes *Processes
	// Deployments scales the run's Deployment subjects (cluster mode; nil
	// otherwise).
	Deployments *Deployments
	// Config reaches the run's API server with opcert's own rights, for
	// the watches a real-time run needs (nil in virtual time).
	Config *rest.Config
	// Origin is the run's time zero (timeline.Epoch in virtual time, the wall
	// clock's start in real time) and Scale what scenario times are
	// multiplied by (Options.TimeScale): a mechanism that queues its own
	// work at scenario times (chaos) queues it at At.
	Origin time.Time
	Scale  float64

	// background work of the run (Go), stopped when the run ends.
	bg     context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Go runs f beside the run (a watch feeding a real-time scheduler) with a
// context that ends with the run; the run waits for f to return before it
// is judged, so nothing reaches the timeline after its end.
func (s *Stage) Go(f func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f(s.bg)
	}()
}

// stop ends the run's background work and waits for it.
func (s *Stage) stop() {
	s.cancel()
	s.wg.Wait()
}

// At is the instant of a scenario time: the origin plus the time, scaled.
func (s *Stage) At(offset time.Duration) time.Time {
	return s.Origin.Add(s.Scaled(offset))
}

// Scaled is a duration of the scenario's world (a pod's pace) as the run
// plays it: multiplied by Scale.
func (s *Stage) Scaled(d time.Duration) time.Duration { return scaled(d, s.Scale) }

// scaled multiplies d by scale (0 meaning 1).
func scaled(d time.Duration, scale float64) time.Duration {
	if scale == 0 || scale == 1 {
		return d
	}
	return time.Duration(float64(d) * scale)
}

// Subjects resolves role=subject choices against a mechanism's roles,
// filling unnamed roles with the reference. A choice's role may be scoped
// to a mechanism ("stale.operator"); choices scoped to another mechanism
// are not this one's. Unknown roles or subjects are errors that list what
// exists.
func (m *Mechanism) Subjects(choices map[string]string) (Cast, error) {
	out := Cast{}
	for _, r := range m.Roles {
		out[r.Name] = r.Subjects[0]
	}
	for key, subject := range choices {
		role := key
		if mech, r, scoped := strings.Cut(key, "."); scoped {
			if mech != m.Name {
				continue
			}
			role = r
		}
		r := m.role(role)
		if r == nil {
			return nil, fmt.Errorf("mechanism %s has no role %q; roles: %s", m.Name, role, strings.Join(m.roleNames(), ", "))
		}
		s, ok := r.subject(subject)
		if external, err := r.externalError(subject); !ok && external {
			if err == nil {
				f := FormProcess
				if strings.HasPrefix(subject, deploymentPrefix) {
					f = FormCluster
				}
				return nil, fmt.Errorf("%w; subjects: %s", m.refusal(r, f), strings.Join(r.names(), ", "))
			}
			shown, _ := Shown(subject)
			return nil, fmt.Errorf("--subject %s=%s: %w", role, shown, err)
		}
		if !ok {
			shown, _ := Shown(subject)
			return nil, fmt.Errorf("role %s.%s has no subject %q; subjects: %s", m.Name, role, shown, strings.Join(r.names(), ", "))
		}
		out[role] = s
	}
	return out, nil
}

// HasRole tells whether the mechanism has a role of that name.
func (m *Mechanism) HasRole(name string) bool { return m.role(name) != nil }

// Takes tells whether the mechanism's role takes a team's subject in
// form f (Role.Forms).
func (m *Mechanism) Takes(role string, f Form) bool {
	r := m.role(role)
	return r != nil && r.Takes(f)
}

// HasSubject tells whether the mechanism's role has a subject of that name.
func (m *Mechanism) HasSubject(role, subject string) bool {
	r := m.role(role)
	if r == nil {
		return false
	}
	_, ok := r.subject(subject)
	return ok
}

func (m *Mechanism) role(name string) *Role {
	for i := range m.Roles {
		if m.Roles[i].Name == name {
			return &m.Roles[i]
		}
	}
	return nil
}

func (m *Mechanism) roleNames() []string {
	var names []string
	for _, r := range m.Roles {
		names = append(names, r.Name)
	}
	sort.Strings(names)
	return names
}

func (r *Role) subject(name string) (Subject, bool) {
	for _, s := range r.Subjects {
		if s.Name == name {
			return s, true
		}
	}
	if cmd, ok := strings.CutPrefix(name, execPrefix); ok && r.Takes(FormProcess) {
		c, err := r.command(cmd)
		shown, _ := redact.Args(c)
		return Subject{Name: name, Description: "the executable " + process.Command(shown).String(), Impl: Process{Command: c}}, err == nil
	}
	if spec, ok := strings.CutPrefix(name, deploymentPrefix); ok && r.Takes(FormCluster) {
		d, err := ParseDeployment(spec)
		return Subject{Name: name, Description: "the Deployment " + d.Namespace + "/" + d.Name + " on the cluster", Impl: d}, err == nil
	}
	return Subject{}, false
}

// externalError tells whether subject is in a form of a subject outside
// opcert (exec:, deployment:) and, when the role takes that form, what is
// wrong with it; a nil error with true means the role does not take it.
func (r *Role) externalError(subject string) (bool, error) {
	if cmd, ok := strings.CutPrefix(subject, execPrefix); ok {
		if !r.Takes(FormProcess) {
			return true, nil
		}
		_, err := r.command(cmd)
		return true, err
	}
	if spec, ok := strings.CutPrefix(subject, deploymentPrefix); ok {
		if !r.Takes(FormCluster) {
			return true, nil
		}
		_, err := ParseDeployment(spec)
		return true, err
	}
	return false, nil
}

func (r *Role) names() []string {
	var names []string
	for _, s := range r.Subjects {
		names = append(names, s.Name)
	}
	return names
}

// Actions carries out a run's scenario actions: the mechanism's actions,
// declared once with their handlers (scenarios.Actions, the list its
// scenarios.Kind registers), bound to the world its Build made (On).
type Actions = *scenarios.Bound
