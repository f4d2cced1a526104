package apitest

import (
	"testing"

	"github.com/opcert/opcert/apiserver"
	"github.com/opcert/opcert/apiserver/apiservertest"
)

// api is the one API server this package's tests share.
var api *apiserver.Server

func TestMain(m *testing.M) { apiservertest.Main(m, &api) }
