package clusteroperator_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/sim/apiserver"
	"github.com/opcert/opcert/sim/apiserver/apiservertest"
)

// api is the one API server this package's integration tests and
// benchmarks share, as one `opcert run` does.
var api *apiserver.Server

var runs atomic.Int64

// prefix gives each run its own object names on the shared server.
func prefix() string { return fmt.Sprintf("c%03d-", runs.Add(1)) }

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
