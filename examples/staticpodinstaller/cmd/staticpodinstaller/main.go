// Command staticpodinstaller installs one revision of a static pod on a
// node and exits (package staticpodinstaller).
package main

import (
	"fmt"
	"os"

	"github.com/opcert/opcert/examples/staticpodinstaller"
)

func main() {
	if err := staticpodinstaller.Main(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "staticpodinstaller:", err)
		os.Exit(1)
	}
}
