package apitest

import (
	"testing"

	"github.com/opcert/opcert/sim/apiserver"
	"github.com/opcert/opcert/sim/apiserver/apiservertest"
)

// api is the one API server this package's tests share.
var api *apiserver.Server

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
