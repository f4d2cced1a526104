// Command pause is the sandbox process of every pod on the kind node that
// hack/kind/build.sh builds (containerd's sandbox image): it holds the
// pod's namespaces open, reaps the children it inherits as the pod's
// init, and exits when asked to stop. Built here because no image
// registry is reachable to pull one from.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		reap()
	}
}

// reap collects every child that has exited, so that none stays a zombie
// in a pod that shares its process namespace.
func reap() {
	for {
		var status syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &status, syscall.WNOHANG, nil)
		if pid <= 0 || err != nil {
			return
		}
	}
}
