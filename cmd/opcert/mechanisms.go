package main

// The mechanisms opcert knows: each registers itself (its roles, subjects,
// rules, flags and scenario kinds) from its package's init. Adding a
// mechanism to the CLI is one line here.
import (
	_ "github.com/opcert/opcert/conformance/clusteroperator"
	_ "github.com/opcert/opcert/conformance/olm"
	_ "github.com/opcert/opcert/conformance/stackable"
	_ "github.com/opcert/opcert/conformance/stale"
	_ "github.com/opcert/opcert/conformance/staticpod"
)
