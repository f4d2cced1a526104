package conformance

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/opcert/opcert/judge"
	"github.com/opcert/opcert/scenarios"
	"github.com/spf13/pflag"
)

// Plugin is how a mechanism registers itself with the harness, once, from
// its package's init: the CLI then knows it by importing the package and
// nothing else. Flags adds the mechanism's own flags (thresholds, budgets)
// to a command's flag set and returns the function that builds the
// Mechanism from their values once parsed, refusing values that make no
// sense. Scenarios is its part of the scenario format (its Mechanism is
// the plug-in's Name), registered with it.
type Plugin struct {
	// Name is the mechanism's name, as --mechanism and scenario files take it.
	Name string
	// Seed is the number of the seed the mechanism implements ("001").
	Seed string
	// Flags registers the mechanism's flags and returns its builder (see above).
	Flags func(fs *pflag.FlagSet) func() (Mechanism, error)
	// Scenarios is the mechanism's kind of scenario: its actions and their values.
	Scenarios scenarios.Kind
	// Profiles are the designs the rules can judge against (e.g. the seed
	// as its seed decisions read it, and what an upstream project shipped), the
	// default first, chosen with the flag ProfileFlag. None: the seed only.
	Profiles []string
	// ProfileFlag is the flag that chooses among Profiles; empty when there are none.
	ProfileFlag string
}

var (
	registryMu sync.Mutex
	registry   = map[string]Plugin{}
)

// Register adds a mechanism; registering a name twice is a programming error.
func Register(p Plugin) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[p.Name]; dup {
		panic(fmt.Sprintf("conformance: mechanism %q registered twice", p.Name))
	}
	p.Scenarios.Mechanism = p.Name
	scenarios.RegisterKind(p.Scenarios)
	registry[p.Name] = p
}

// Plugins lists the registered mechanisms by name.
func Plugins() []Plugin {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Plugin, 0, len(registry))
	for _, p := range registry {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Defaults builds every registered mechanism with its flags' defaults, for
// listings (subjects).
func Defaults() ([]Mechanism, error) {
	var out []Mechanism
	for _, p := range Plugins() {
		m, err := p.build("")
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ProfiledRules lists every mechanism's rules once per profile, with the
// profile's name ("seed" where a mechanism has one design only), for
// listings that show how the profiles differ.
func ProfiledRules() ([]ProfiledRule, error) {
	var out []ProfiledRule
	for _, p := range Plugins() {
		profiles := p.Profiles
		if len(profiles) == 0 {
			profiles = []string{""}
		}
		for _, prof := range profiles {
			m, err := p.build(prof)
			if err != nil {
				return nil, err
			}
			name := prof
			if name == "" {
				name = "seed"
			}
			for _, r := range m.Rules() {
				out = append(out, ProfiledRule{Mechanism: m.Name(), Profile: name, Reaction: ReactionOf(m), Rule: r})
			}
		}
	}
	return out, nil
}

// ProfiledRule is a rule as one profile of its mechanism states it.
type ProfiledRule struct {
	// Mechanism and Profile name the mechanism and the profile that states the rule.
	Mechanism, Profile string
	// Reaction is the mechanism's default reaction bound
	// (Reactive; zero when it judges no reaction).
	Reaction time.Duration
	judge.Rule
}

// build makes the mechanism with its flags' defaults, and profile if given.
func (p Plugin) build(profile string) (Mechanism, error) {
	fs := pflag.NewFlagSet(p.Name, pflag.ContinueOnError)
	build := p.Flags(fs)
	if profile != "" {
		if err := fs.Set(p.ProfileFlag, profile); err != nil {
			return nil, fmt.Errorf("mechanism %s: profile %s: %w", p.Name, profile, err)
		}
	}
	m, err := build()
	if err != nil {
		return nil, fmt.Errorf("mechanism %s: %w", p.Name, err)
	}
	return m, nil
}
