// Package all registers every mechanism opcert ships, each from its
// package's init (its roles, subjects, rules, flags and scenario kind):
// a program that imports it (the opcert CLI, package certify) knows them
// all through the registry (conformance.Plugins) and names none. Adding
// a mechanism is one line here (docs/concepts/adding-a-mechanism.md).
package all

import (
	_ "github.com/opcert/opcert/conformance/clusteroperator"
	_ "github.com/opcert/opcert/conformance/olm"
	_ "github.com/opcert/opcert/conformance/stackable"
	_ "github.com/opcert/opcert/conformance/stale"
	_ "github.com/opcert/opcert/conformance/staticpod"
)
