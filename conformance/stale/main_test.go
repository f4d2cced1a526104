package stale_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/opcert/opcert/sim/apiserver"
	"github.com/opcert/opcert/sim/apiserver/apiservertest"
)

// api is the one API server this package's process-mode tests share, as
// one `opcert run` does.
var api *apiserver.Server

var runs atomic.Int64

// prefix gives each run its own object names on the shared server.
func prefix() string { return fmt.Sprintf("d%03d-", runs.Add(1)) }

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
