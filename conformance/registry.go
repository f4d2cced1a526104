package conformance

import (
	"fmt"
	"sort"
	"sync"

	"github.com/spf13/pflag"
)

// Plugin is how a mechanism registers itself with the harness, once, from
// its package's init: the CLI then knows it by importing the package and
// nothing else. Flags adds the mechanism's own flags (thresholds, budgets)
// to a command's flag set and returns the function that builds the
// Mechanism from their values once parsed, refusing values that make no
// sense.
type Plugin struct {
	Name  string
	Seed  string
	Flags func(fs *pflag.FlagSet) func() (*Mechanism, error)
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
// listings (rules, subjects).
func Defaults() ([]*Mechanism, error) {
	var out []*Mechanism
	for _, p := range Plugins() {
		build := p.Flags(pflag.NewFlagSet(p.Name, pflag.ContinueOnError))
		m, err := build()
		if err != nil {
			return nil, fmt.Errorf("mechanism %s: %w", p.Name, err)
		}
		out = append(out, m)
	}
	return out, nil
}
