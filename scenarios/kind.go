package scenarios

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is a mechanism's part of the scenario format, registered once from
// the mechanism's package (RegisterKind); the loader knows no mechanism by
// name.
type Kind struct {
	// Mechanism is the name scenarios give in their mechanism field.
	Mechanism string
	// World is the struct type of the mechanism's top-level fields (for
	// stale: operators and chaos); nil for none. Scenario.World holds a
	// pointer to a new value of it.
	World reflect.Type
	// Actions are the step actions, each with what carries it out on the
	// mechanism's world (Actions, actions.go), in the order messages list
	// them; nil: none.
	Actions ActionSet
	// Expects is the kind an expect step reads when it names none.
	Expects schema.GroupVersionKind
	// Conditions are the condition types its worlds report and expect may
	// check (Check.Condition and expect steps enforce the list).
	Conditions []string
	// Roles are the roles of the actors its worlds run whose calls go to
	// the API server (the subjects' and simulated ones'): what an
	// apiErrors step may name. None: the kind takes no apiErrors.
	Roles []string
	// Validate checks what the generic checks cannot: names the actions
	// refer to, the World's own fields. It reports through c.
	Validate func(c *Check, s *Scenario)
	// Builtins holds the mechanism's built-in scenario files (.yaml) at its
	// root, or nil.
	Builtins fs.FS
	// Draw, if set, makes a random scenario of the kind for `opcert fuzz`:
	// a world and its fault steps (Time and the action set; no expect),
	// everything drawn from r, over duration. What it draws must pass
	// validation: fuzz writes it out with Encode and runs what Parse reads
	// back, so that the file replays the run exactly. Its steps are what
	// shrinking removes and moves, so it draws faults as steps, not chaos.
	Draw func(r *rand.Rand, duration time.Duration) (world any, steps []Step)
}

// Drawable lists the mechanisms whose kinds can draw random scenarios.
func Drawable() []string {
	var names []string
	for _, k := range Kinds() {
		if k.Draw != nil {
			names = append(names, k.Mechanism)
		}
	}
	return names
}

var (
	kindsMu sync.Mutex
	kinds   = map[string]*Kind{}
)

// RegisterKind adds a mechanism's part of the format; a name given twice, or
// an action that shadows a shared step field, is a programming error.
func RegisterKind(k Kind) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[k.Mechanism]; dup {
		panic(fmt.Sprintf("scenarios: kind %q registered twice", k.Mechanism))
	}
	shared, _ := fieldsOf(stepType)
	for _, a := range k.declared() {
		if _, clash := shared[a.Name]; clash {
			panic(fmt.Sprintf("scenarios: kind %q: action %q is a shared step field", k.Mechanism, a.Name))
		}
	}
	kinds[k.Mechanism] = &k
}

// RolesOf are the roles a mechanism's kind names (Kind.Roles): those
// whose calls opcert plays, which apiErrors and perturb steps name.
func RolesOf(mechanism string) []string {
	if k, ok := kindOf(mechanism); ok {
		return slices.Clone(k.Roles)
	}
	return nil
}

func kindOf(mechanism string) (*Kind, bool) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	k, ok := kinds[mechanism]
	return k, ok
}

// Kinds lists the registered kinds by mechanism name.
func Kinds() []*Kind {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	out := make([]*Kind, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mechanism < out[j].Mechanism })
	return out
}

func mechanismNames() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Mechanism)
	}
	if len(names) == 0 {
		return "none registered"
	}
	return strings.Join(names, ", ")
}

// Embedded is the directory dir of files, a mechanism's built-in scenarios
// embedded in its binary (Kind.Builtins). The directory is there at build
// time: a dir that is not is a programming error, and panics.
func Embedded(files fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(fmt.Sprintf("scenarios: built-ins in %s: %v", dir, err))
	}
	return sub
}

// declared is the kind's actions as the format reads them.
func (k *Kind) declared() []Action {
	if k.Actions == nil {
		return nil
	}
	return k.Actions.Declared()
}

func (k *Kind) action(name string) (Action, bool) {
	for _, a := range k.declared() {
		if a.Name == name {
			return a, true
		}
	}
	return Action{}, false
}

func (k *Kind) actionNames() []string {
	var names []string
	for _, a := range k.declared() {
		names = append(names, a.Name)
	}
	return names
}
