// Command etcd is the etcd server, built from go.etcd.io/etcd/server/v3 so
// that opcert needs no binary download to run a real API server.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
