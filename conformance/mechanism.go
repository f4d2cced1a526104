package conformance

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/sim"
)

// Mechanism is one seed's plug-in: its roles and their subjects, its rules,
// and how a scenario's world is built with the chosen subjects.
type Mechanism struct {
	Name  string // the seed's short name, as scenarios name it
	Seed  string // the seed file's number, e.g. "000"
	Roles []Role
	Rules []Rule
	Build func(ctx context.Context, w *Stage, sc *scenarios.Scenario, subjects map[string]string) (Processes, error)
	// Estimate is the API calls a scenario costs on the reference, for
	// --dry-run and the warning before a long run.
	Estimate func(sc *scenarios.Scenario) int
}

// Role is a part a subject plays; its first subject is the reference.
type Role struct {
	Name     string
	Subjects []Subject
}

// Subject fills a role: the reference, or a deliberately broken variant
// that proves the rules can fail.
type Subject struct {
	Name        string
	Description string
}

// Stage is what a mechanism builds a scenario's world on.
type Stage struct {
	Sched *sim.Scheduler
	// API is a direct client of the run's API server; actors wrap it with
	// Sched.Client so their writes are recorded.
	API client.Client
}

// Processes carries out the scenario steps that act on operator processes.
type Processes interface {
	Kill(ctx context.Context, name string) error
	Restart(ctx context.Context, name string) error
	Hang(ctx context.Context, name string) error
	Reconnect(ctx context.Context, name string) error
	SetCondition(ctx context.Context, operator string, c scenarios.Condition) error
	SetAnswerDelay(ctx context.Context, operator string, d time.Duration) error
}

// Subjects resolves role=subject choices against a mechanism's roles,
// filling unnamed roles with the reference. Unknown roles or subjects are
// errors that list what exists.
func (m *Mechanism) Subjects(choices map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range m.Roles {
		out[r.Name] = r.Subjects[0].Name
	}
	for role, subject := range choices {
		r := m.role(role)
		if r == nil {
			return nil, fmt.Errorf("mechanism %s has no role %q; roles: %s", m.Name, role, strings.Join(m.roleNames(), ", "))
		}
		found := false
		var names []string
		for _, s := range r.Subjects {
			names = append(names, s.Name)
			found = found || s.Name == subject
		}
		if !found {
			return nil, fmt.Errorf("role %s has no subject %q; subjects: %s", role, subject, strings.Join(names, ", "))
		}
		out[role] = subject
	}
	return out, nil
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
