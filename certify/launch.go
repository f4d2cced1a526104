package certify

import "github.com/opcert/opcert/apiserver"

// opcert starts kube-apiserver and etcd through its own executable (the
// launcher ties their lives to it: apiserver/launch.go), which here is the
// team's test binary. Started so, the binary must become the launcher
// before anything else runs; this init runs before the importing test
// package's own variables and TestMain, so teams need not call anything.
func init() { apiserver.MaybeLaunch() }
