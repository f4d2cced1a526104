package node

import "errors"

// order is what order.go (own, of) reads; darwin never
// makes one (newOrder refuses).
type order struct {
	seq   int64
	last  map[string]int64
	lost  bool
	locks []lockOp
}

// errNoOrder refuses to track a node from outside on darwin: the order of
// an outsider's changes comes from linux's inotify queue, and darwin's
// kqueue says that a directory changed, not which entry, so the order of
// two changes made a microsecond apart is lost (FSEvents, which names
// them, needs cgo, which opcert's builds do without).
var errNoOrder = errors.New("tracking the node files that a staticpod installer or startup monitor run as a process changes " +
	"needs linux's inotify to order the changes; it is not available on darwin: run it on linux")

func newOrder(string) (*order, error) { return nil, errNoOrder }

// close, drain: never called, newOrder gives no order on darwin.
func (o *order) close() {}

func (o *order) drain(string) bool { return false }
