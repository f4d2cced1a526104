package process

import (
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
)

// api is the API server the proxy's tests forward to; nil with -short.
var api *apiserver.Server

// prefix names each test's objects apart on it.
var prefix = apiservertest.Prefixes("p")

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }

// needAPI skips a test that needs the API server when -short started none.
func needAPI(t *testing.T) {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server (not started with -short)")
	}
}
