// Package apiservertest starts the one API server a test package shares
// (Main), for every package whose tests need kube-apiserver and etcd, and
// names each run's objects apart on it (Prefixes). It is for tests only.
package apiservertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/apiserver"
)

// Main is a test package's TestMain: it starts the one API server its
// integration tests and benchmarks share, as one `opcert run` does, into
// *api, runs the tests and stops the server. With -short, or while fuzzing
// (the fuzz targets need no API server), it starts none.
func Main(m *testing.M, api **apiserver.Server) {
	apiserver.MaybeLaunch()
	flag.Parse()
	if testing.Short() || fuzzing() {
		os.Exit(m.Run())
	}
	w, err := apiserver.Start(context.Background(), apiserver.Options{Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "these tests need kube-apiserver and etcd (run `make envtest`):", err)
		os.Exit(2)
	}
	*api = w
	code := m.Run()
	_ = w.Stop()
	os.Exit(code)
}

// Prefixes gives each run of a test package its own object names on the
// shared server: letter, then a count ("c001-", "c002-", ...).
func Prefixes(letter string) func() string {
	var runs atomic.Int64
	return func() string { return fmt.Sprintf("%s%03d-", letter, runs.Add(1)) }
}

// fuzzing tells whether this process fuzzes (as coordinator or worker).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	w := flag.Lookup("test.fuzzworker")
	return f != nil && f.Value.String() != "" || w != nil && w.Value.String() == "true"
}
