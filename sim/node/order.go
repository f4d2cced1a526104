package node

import "path"

// order tells in which order the entries of the node changed: on linux
// (order_linux.go) the kernel queues an inotify event for every change
// while the call that makes it runs, in one queue for all the node's directories, so that two changes a
// process made a microsecond apart (a link, then a removal) keep their
// order, which no timestamp on disk keeps (their clocks are coarse). Its
// queue is read, without waiting, when the node looks for changes.
type order struct {
	watch // the platform's: an inotify descriptor and its watches on linux
	seq   int64
	last  map[string]int64 // node path -> the number of its last event
	lost  bool             // the queue overflowed: order by path
	// locks are the lock files made and removed since the last look, in
	// order: a lock taken and released between two looks leaves nothing
	// for a comparison with the disk to see.
	locks []lockOp
}

// lockOp is a lock file made (taken) or removed, and its event's number.
type lockOp struct {
	path  string
	seq   int64
	taken bool
}

func joinNode(dir, rel string) string {
	if rel == "." {
		return dir
	}
	if dir == "/" {
		return "/" + rel
	}
	return dir + "/" + rel
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
