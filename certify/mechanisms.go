package certify

// The mechanisms a team can certify against: each registers itself from
// its package's init, and certify finds it by name (Options.Mechanism).
import (
	_ "github.com/opcert/opcert/conformance/clusteroperator"
	_ "github.com/opcert/opcert/conformance/stackable"
	_ "github.com/opcert/opcert/conformance/stale"
	_ "github.com/opcert/opcert/conformance/staticpod"
)
