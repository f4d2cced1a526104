package record

import (
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
)

// api is the one API server this package's tests share.
var api *apiserver.Server

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }

// needAPI skips a test that needs the API server when there is none (-short).
func needAPI(t *testing.T) {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
}
