package node

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"unsafe"
)

// order tells in which order the entries of the node changed: the kernel
// queues an inotify event for every change while the call that makes it
// runs, in one queue for all the node's directories, so that two changes a
// process made a microsecond apart (a link, then a removal) keep their
// order, which no timestamp on disk keeps (their clocks are coarse). Its
// queue is read, without waiting, when the node looks for changes.
type order struct {
	fd   int
	dirs map[int32]string // watch -> node directory
	seq  int64
	last map[string]int64 // node path -> the number of its last event
	lost bool             // the queue overflowed: order by path
	// locks are the lock files made and removed since the last look, in
	// order: a lock taken and released between two looks leaves nothing
	// for a comparison with the disk to see.
	locks []lockOp
}

const watchMask = syscall.IN_CREATE | syscall.IN_DELETE | syscall.IN_MOVED_FROM | syscall.IN_MOVED_TO |
	syscall.IN_CLOSE_WRITE | syscall.IN_MODIFY | syscall.IN_ONLYDIR

// newOrder watches every directory under dir (a node's host directory).
func newOrder(dir string) (*order, error) {
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		return nil, err
	}
	o := &order{fd: fd, dirs: map[int32]string{}, last: map[string]int64{}}
	if err := o.watchTree(dir, "/"); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return o, nil
}

func (o *order) close() { syscall.Close(o.fd) }

// watchTree watches the host directory host (node path np) and those under
// it, but dot names.
func (o *order) watchTree(host, np string) error {
	return filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || !d.IsDir() {
			return err
		}
		if p != host && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		rel, err := filepath.Rel(host, p)
		if err != nil {
			return err
		}
		wd, err := syscall.InotifyAddWatch(o.fd, p, watchMask)
		if errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if err != nil {
			return err
		}
		o.dirs[int32(wd)] = joinNode(np, filepath.ToSlash(rel))
		return nil
	})
}

// drain numbers the events queued so far, and tells whether there were
// any; root is the node's host directory, for the directories to watch
// that appeared.
func (o *order) drain(root string) bool {
	var buf [64 << 10]byte
	read := false
	for {
		n, err := syscall.Read(o.fd, buf[:])
		if err != nil || n <= 0 {
			return read // EAGAIN: nothing more queued
		}
		read = true
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := strings.TrimRight(string(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)]), "\x00")
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				o.lost = true
				continue
			}
			dir, ok := o.dirs[ev.Wd]
			if ev.Mask&syscall.IN_IGNORED != 0 {
				delete(o.dirs, ev.Wd)
				continue
			}
			if !ok || name == "" {
				continue
			}
			np := joinNode(dir, name)
			o.seq++
			o.last[np] = o.seq
			if dir == LockDir && !strings.HasPrefix(name, ".") {
				switch {
				case ev.Mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0:
					o.locks = append(o.locks, lockOp{np, o.seq, true})
				case ev.Mask&(syscall.IN_DELETE|syscall.IN_MOVED_FROM) != 0:
					o.locks = append(o.locks, lockOp{np, o.seq, false})
				}
			}
			if ev.Mask&syscall.IN_ISDIR != 0 && ev.Mask&(syscall.IN_CREATE|syscall.IN_MOVED_TO) != 0 && !strings.HasPrefix(name, ".") {
				// Its entries made before the watch have no event: they
				// come after the directory.
				_ = o.watchTree(filepath.Join(root, filepath.FromSlash(np[1:])), np)
			}
		}
	}
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
