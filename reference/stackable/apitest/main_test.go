package apitest

import (
	"testing"

	"github.com/opcert/opcert/conformance/conformancetest"
	"github.com/opcert/opcert/sim/world"
)

// api is the one API server this package's tests share.
var api *world.World

func TestMain(m *testing.M) { conformancetest.Main(m, &api) }
