// Command release holds the release checks that need more than the go
// command: a module proxy served from files, to go install opcert at a
// version from a clean module cache, and opcert's container image, built
// from scratch layers with go-containerregistry (the library behind crane
// and ko) to a local tarball, then loaded and inspected. hack/release/check.sh
// runs them; it is a module of its own so that opcert's go.mod keeps only
// what opcert needs.
//
//	release modproxy -repo DIR -version VERSION -out DIR
//	release image -version V -commit SHA -date RFC3339 -opcert FILE -assets DIR -out FILE
//	release inspect -version V FILE
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: release modproxy|image|inspect [flags]")
		os.Exit(2)
	}
	commands := map[string]func([]string) error{"modproxy": modproxy, "image": image, "inspect": inspect}
	run, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "release: no command %q; use modproxy, image or inspect\n", os.Args[1])
		os.Exit(2)
	}
	if err := run(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "release %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
