package conformance

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/spf13/pflag"
)

// Tool is a command a mechanism offers beside run, lint and analyze: a
// question its users ask of its design that needs neither an API server
// nor a timeline (seed 002's "why is this upgrade blocked?"). A mechanism
// registers its tools from its package's init with RegisterTool; the CLI
// offers each as "opcert <Mechanism> <Name>" without knowing the
// mechanism.
type Tool struct {
	Mechanism string // the mechanism, which names the command group: olm
	Seed      string // 002
	Name      string // the command's name: explain
	Usage     string // its arguments, for the usage line: "CRD-FILE CR-FILE..."
	Short     string // one line for listings
	Long      string // the help text: what it reads and prints
	// Flags adds the tool's flags to fs and returns its run, which is
	// given the command's context (done on Ctrl-C: the run returns its
	// cause at once, also from a read that blocks), the positional
	// arguments and where to print. Its error is the input's fault (a
	// file that cannot be read or is larger than the tool reads, an
	// unknown flag value): the CLI exits 2 with it.
	Flags func(fs *pflag.FlagSet) func(ctx context.Context, args []string, out io.Writer) error
}

var (
	toolsMu sync.Mutex
	tools   []Tool
)

// RegisterTool adds a mechanism's tool; a mechanism registering two tools
// of one name is a programming error.
func RegisterTool(t Tool) {
	toolsMu.Lock()
	defer toolsMu.Unlock()
	if slices.ContainsFunc(tools, func(x Tool) bool { return x.Mechanism == t.Mechanism && x.Name == t.Name }) {
		panic(fmt.Sprintf("conformance: tool %s %s registered twice", t.Mechanism, t.Name))
	}
	tools = append(tools, t)
}

// Tools lists the registered tools by mechanism, then name.
func Tools() []Tool {
	toolsMu.Lock()
	defer toolsMu.Unlock()
	out := slices.Clone(tools)
	slices.SortFunc(out, func(a, b Tool) int { return cmp.Or(cmp.Compare(a.Mechanism, b.Mechanism), cmp.Compare(a.Name, b.Name)) })
	return out
}
