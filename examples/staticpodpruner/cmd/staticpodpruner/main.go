// Command staticpodpruner prunes old revisions of a static pod on a node
// once and exits (package staticpodpruner).
package main

import (
	"fmt"
	"os"

	"github.com/opcert/opcert/examples/staticpodpruner"
)

func main() {
	if err := staticpodpruner.Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "staticpodpruner:", err)
		os.Exit(1)
	}
}
