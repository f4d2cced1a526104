package apitest

import (
	"testing"

	"github.com/opcert/opcert/sim/world"
	"github.com/opcert/opcert/sim/world/worldtest"
)

// api is the one API server this package's tests share.
var api *world.World

func TestMain(m *testing.M) { worldtest.Main(m, &api) }
