package staticpod_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
	"github.com/opcert/opcert/examples/startupmonitor"
)

// api is the one API server this package's integration tests and
// benchmarks share, as one `opcert run` does. prefix gives each run its
// own object names on it.
var (
	api    *apiserver.Server
	prefix = apiservertest.Prefixes("s")
)

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == exampleMonitor {
		// Started as the example startup-monitor (process_test.go).
		if err := startupmonitor.Main(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "startupmonitor:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	apiservertest.Main(m, &api)
}
