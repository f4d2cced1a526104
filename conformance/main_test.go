package conformance_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/sim/apiserver"
	"github.com/opcert/opcert/sim/apiserver/apiservertest"
)

// api is the one API server the integration suite and the benchmarks share,
// as one `opcert run` does.
var api *apiserver.Server

var runs atomic.Int64

// prefix gives each run its own object names on the shared server.
func prefix() string { return fmt.Sprintf("t%03d-", runs.Add(1)) }

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
