// Command startupmonitor runs the example startup-monitor of one revision
// until it is stopped (package startupmonitor).
package main

import (
	"fmt"
	"os"

	"github.com/opcert/opcert/examples/startupmonitor"
)

func main() {
	if err := startupmonitor.Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "startupmonitor:", err)
		os.Exit(1)
	}
}
