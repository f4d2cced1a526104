package staticpod_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/examples/startupmonitor"
	"github.com/opcert/opcert/examples/staticpodinstaller"
	"github.com/opcert/opcert/examples/staticpodpruner"
	"github.com/opcert/opcert/sim/apiserver"
	"github.com/opcert/opcert/sim/apiserver/apiservertest"
)

// api is the one API server this package's integration tests and benchmarks share,
// as one `opcert run` does.
var api *apiserver.Server

var runs atomic.Int64

// prefix gives each run its own object names on the shared server.
func prefix() string { return fmt.Sprintf("s%03d-", runs.Add(1)) }

func TestMain(m *testing.M) {
	// Started as an example (process_test.go, commands_test.go).
	if example, ok := map[string]func([]string) error{exampleMonitor: startupmonitor.Main,
		exampleInstaller: staticpodinstaller.Main, examplePruner: staticpodpruner.Main}[filepath.Base(os.Args[0])]; ok {
		if err := example(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, filepath.Base(os.Args[0])+":", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	apiservertest.Main(m, &api)
}
