package staticpod_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/sim/world"
)

// api is the one API server this package's integration tests and
// benchmarks share, as one `opcert run` does.
var api *world.World

var runs atomic.Int64

// prefix gives each run its own object names on the shared server.
func prefix() string { return fmt.Sprintf("s%03d-", runs.Add(1)) }

func TestMain(m *testing.M) {
	world.MaybeLaunch()
	flag.Parse()
	if testing.Short() || fuzzing() {
		os.Exit(m.Run())
	}
	w, err := world.Start(context.Background(), world.Options{Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "staticpod tests need kube-apiserver and etcd (run `make envtest`):", err)
		os.Exit(2)
	}
	api = w
	code := m.Run()
	_ = w.Stop()
	os.Exit(code)
}

// fuzzing tells whether this process fuzzes (as coordinator or worker):
// the fuzz targets need no API server.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	w := flag.Lookup("test.fuzzworker")
	return f != nil && f.Value.String() != "" || w != nil && w.Value.String() == "true"
}
