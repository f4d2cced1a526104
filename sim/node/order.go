package node

import "path"

// lockOp is a lock file made (taken) or removed, and its event's number.
type lockOp struct {
	path  string
	seq   int64
	taken bool
}

// own drains the events of a change a handle just made: they are not
// the outsider's.
func (o *order) own(root string) {
	o.drain(root)
	o.locks = nil
}

// of is the number of p's last event: its own, else its nearest
// directory's (made with it), else after every numbered one.
func (o *order) of(p string) int64 {
	if o.lost {
		return 0
	}
	for q := p; q != "/"; q = path.Dir(q) {
		if s, ok := o.last[q]; ok {
			return s
		}
	}
	return o.seq + 1
}
