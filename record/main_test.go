package record

import (
	"testing"

	"github.com/opcert/opcert/sim/world"
	"github.com/opcert/opcert/sim/world/worldtest"
)

// api is the one API server this package's tests share.
var api *world.World

func TestMain(m *testing.M) { worldtest.Main(m, &api) }

// needAPI skips a test that needs the API server when there is none (-short).
func needAPI(t *testing.T) {
	t.Helper()
	if api == nil {
		t.Skip("needs the API server")
	}
}
