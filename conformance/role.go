package conformance

import (
	"fmt"
	"sort"
	"strings"

	"github.com/opcert/opcert/process"
	"github.com/opcert/opcert/redact"
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
	// Name is the role's name, as --subject role=... and the report take it.
	Name string
	// Subjects are the role's subjects, the reference first, then the broken variants.
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
	// Name is how --subject and the report name the subject.
	Name string
	// Description says in one line what the subject does (or breaks), for listings.
	Description string
	// Impl is what the mechanism builds the role's actor from.
	Impl any
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

// Subjects resolves role=subject choices against a mechanism's roles,
// filling unnamed roles with the reference. A choice's role may be scoped
// to a mechanism ("stale.operator"); choices scoped to another mechanism
// are not this one's. Unknown roles or subjects are errors that list what
// exists.
func Subjects(m Mechanism, choices map[string]string) (Cast, error) {
	out := Cast{}
	for _, r := range m.Roles() {
		out[r.Name] = r.Subjects[0]
	}
	for key, subject := range choices {
		name := key
		if mech, r, scoped := strings.Cut(key, "."); scoped {
			if mech != m.Name() {
				continue
			}
			name = r
		}
		r := findRole(m, name)
		if r == nil {
			return nil, fmt.Errorf("mechanism %s has no role %q; roles: %s", m.Name(), name, strings.Join(roles(m), ", "))
		}
		s, ok := r.subject(subject)
		if external, err := r.externalError(subject); !ok && external {
			if err == nil {
				f := FormProcess
				if strings.HasPrefix(subject, deploymentPrefix) {
					f = FormCluster
				}
				return nil, fmt.Errorf("%w; subjects: %s", refusal(m, r, f), strings.Join(r.names(), ", "))
			}
			shown, _ := Shown(subject)
			return nil, fmt.Errorf("--subject %s=%s: %w", name, shown, err)
		}
		if !ok {
			shown, _ := Shown(subject)
			return nil, fmt.Errorf("role %s.%s has no subject %q; subjects: %s", m.Name(), name, shown, strings.Join(r.names(), ", "))
		}
		out[name] = s
	}
	return out, nil
}

// HasRole tells whether the mechanism has a role of that name.
func HasRole(m Mechanism, name string) bool { return findRole(m, name) != nil }

// Takes tells whether the mechanism's role takes a team's subject in
// form f (Role.Forms).
func Takes(m Mechanism, role string, f Form) bool {
	r := findRole(m, role)
	return r != nil && r.Takes(f)
}

// HasSubject tells whether the mechanism's role has a subject of that name.
func HasSubject(m Mechanism, role, subject string) bool {
	r := findRole(m, role)
	if r == nil {
		return false
	}
	_, ok := r.subject(subject)
	return ok
}

func findRole(m Mechanism, name string) *Role {
	roles := m.Roles()
	for i := range roles {
		if roles[i].Name == name {
			return &roles[i]
		}
	}
	return nil
}

func roles(m Mechanism) []string {
	var names []string
	for _, r := range m.Roles() {
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
