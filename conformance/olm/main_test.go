package olm_test

import (
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
)

// api is the one API server this package's integration tests and
// benchmarks share, as one `opcert run` does. prefix gives each run its
// own object names on it.
var (
	api    *apiserver.Server
	prefix = apiservertest.Prefixes("o")
)

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
