package stale_test

import (
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
)

// api is the one API server this package's process-mode tests share, as
// one `opcert run` does. prefix gives each run its own object names on it.
var (
	api    *apiserver.Server
	prefix = apiservertest.Prefixes("d")
)

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
