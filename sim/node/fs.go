package node

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Operations of events, one per kind of change.
const (
	OpWrite   = "write"
	OpRename  = "rename"
	OpSymlink = "symlink"
	OpRemove  = "remove"
	OpLock    = "lock"
	OpUnlock  = "unlock"
)

// Event is one change to a node's files.
type Event struct {
	// Time is when the change was made, on the run's clock.
	Time time.Time
	// Actor made the change.
	Actor string
	// Op is what was done: one of the Op constants.
	Op     string
	Path   string // node path changed (for a rename, the old one)
	Target string // the new path of a rename, the node path a symlink points to
	Detail string // what a write did ("12 bytes", "append 40 bytes", "append 12 bytes: <line>"), "directory" for a removed tree
}

// Sink receives a node's events in the order the changes were made, with
// the context of the handle that made each (Handle.WithContext), so that a
// simulator can file the event with the work that caused it. It is called
// with the node held, so it must not call the node.
type Sink func(context.Context, Event)

// Node is a simulated node's file system, rooted in a temporary directory.
// It is safe for concurrent use; changes are made one at a time.
type Node struct {
	dir   string
	root  *os.Root
	clock clock.PassiveClock
	sink  Sink

	mu  sync.Mutex
	out *outsider // who changes the node from outside, once Track is called
}

// New lays out an empty node in a new directory under parent (the system's
// temporary directory if empty; a run gives its own, which goes with the
// run's API server even if opcert is killed): the seed's directories exist,
// as on an installed node, without events (they are the node's image,
// nobody's act). Events go to sink (none if nil), stamped with clk's time.
func New(parent string, clk clock.PassiveClock, sink Sink) (*Node, error) {
	dir, err := os.MkdirTemp(parent, "opcert-node-")
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err == nil {
		for _, d := range []string{ManifestsDir, StaticPodsDir, LockDir, LogDir} {
			if err = root.MkdirAll(rootName(d), 0o755); err != nil {
				break
			}
		}
	}
	if err != nil {
		if root != nil {
			root.Close()
		}
		os.RemoveAll(dir)
		return nil, err
	}
	return &Node{dir: dir, root: root, clock: clk, sink: sink}, nil
}

// Dir is the host directory the node is rooted in, for processes that read
// or write the node from outside (their changes are not events).
func (n *Node) Dir() string { return n.dir }

// Close removes the node's directory.
func (n *Node) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.out != nil {
		n.out.order.close()
	}
	return errors.Join(n.root.Close(), os.RemoveAll(n.dir))
}

// As returns a handle whose changes are attributed to actor.
func (n *Node) As(actor string) *Handle {
	return &Handle{n: n, actor: actor, ctx: context.Background()}
}

// Handle is one actor's access to a node.
type Handle struct {
	n     *Node
	actor string
	ctx   context.Context
}

// WithContext returns a copy of the handle whose events reach the sink with
// ctx (the context of the reconcile making the changes).
func (h *Handle) WithContext(ctx context.Context) *Handle {
	c := *h
	c.ctx = ctx
	return &c
}

// change runs fn on the node path p, with the node held, and reports the
// event fn returns if it succeeds. The root itself cannot be changed.
func (h *Handle) change(op, p string, fn func(name, np string) (Event, error)) error {
	np, err := nodePath(p)
	if err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	if np == "/" {
		return &fs.PathError{Op: op, Path: p, Err: errors.New("the node's root cannot change")}
	}
	n := h.n
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, err := n.outside(h.ctx); err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	ev, err := fn(rootName(np), np)
	if err != nil {
		return pathError(op, np, err)
	}
	n.refresh(np)
	if op == OpRename {
		n.refresh(ev.Target)
	}
	if n.out != nil {
		n.out.order.own(n.dir)
	}
	ev.Time, ev.Actor, ev.Op, ev.Path = n.clock.Now(), h.actor, op, np
	if n.sink != nil {
		n.sink(h.ctx, ev)
	}
	return nil
}

// pathError names the node path, not the host one, in errors of os.Root.
func pathError(op, np string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &fs.PathError{Op: op, Path: np, Err: err}
}

// tempName is a hidden sibling of name to build a file or link in before
// renaming it into place; the kubelet, like most watchers, skips dot files.
func tempName(name string) string {
	return path.Join(path.Dir(name), "."+path.Base(name)+".opcert-tmp")
}

// WriteFile replaces the file at p with data, atomically, creating its
// directories as needed.
func (h *Handle) WriteFile(p string, data []byte) error {
	return h.change(OpWrite, p, func(name, _ string) (Event, error) {
		if err := h.writeAtomic(name, data); err != nil {
			return Event{}, err
		}
		return Event{Detail: fmt.Sprintf("%d bytes", len(data))}, nil
	})
}

// WriteFileNoted is WriteFile whose event's Detail is detail, what the
// writer says the file is ("revision=3"), instead of its size.
func (h *Handle) WriteFileNoted(p string, data []byte, detail string) error {
	return h.change(OpWrite, p, func(name, _ string) (Event, error) {
		if err := h.writeAtomic(name, data); err != nil {
			return Event{}, err
		}
		return Event{Detail: detail}, nil
	})
}

// writeAtomic writes data to a hidden temporary file and renames it onto
// name, creating name's directories as needed.
func (h *Handle) writeAtomic(name string, data []byte) error {
	r := h.n.root
	if err := r.MkdirAll(path.Dir(name), 0o755); err != nil {
		return err
	}
	tmp := tempName(name)
	if err := r.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return err
	}
	return nil
}

// AppendFile appends data to the file at p, creating it and its directories
// as needed, as a log is written.
func (h *Handle) AppendFile(p string, data []byte) error {
	return h.appendFile(p, data, fmt.Sprintf("append %d bytes", len(data)))
}

// AppendLine appends one line (a newline is added) to the file at p, as
// AppendFile does; its event's Detail carries the line: "append <N> bytes:
// <line>". A line holding a newline is refused.
func (h *Handle) AppendLine(p, line string) error {
	if strings.ContainsAny(line, "\r\n") {
		return fmt.Errorf("append to %s: %q is not one line", p, line)
	}
	data := []byte(line + "\n")
	return h.appendFile(p, data, fmt.Sprintf("append %d bytes: %s", len(data), line))
}

func (h *Handle) appendFile(p string, data []byte, detail string) error {
	return h.change(OpWrite, p, func(name, _ string) (Event, error) {
		r := h.n.root
		if err := r.MkdirAll(path.Dir(name), 0o755); err != nil {
			return Event{}, err
		}
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return Event{}, err
		}
		_, err = f.Write(data)
		if err = errors.Join(err, f.Close()); err != nil {
			return Event{}, err
		}
		return Event{Detail: detail}, nil
	})
}

// Rename moves from to to, replacing a file or link there, creating to's
// directories as needed.
func (h *Handle) Rename(from, to string) error {
	return h.change(OpRename, from, func(name, _ string) (Event, error) {
		nt, err := nodePath(to)
		if err != nil {
			return Event{}, err
		}
		if nt == "/" {
			return Event{}, errors.New("cannot rename onto the node's root")
		}
		r := h.n.root
		if _, err := r.Lstat(name); err != nil {
			return Event{}, err
		}
		if err := r.MkdirAll(path.Dir(rootName(nt)), 0o755); err != nil {
			return Event{}, err
		}
		if err := r.Rename(name, rootName(nt)); err != nil {
			return Event{}, err
		}
		return Event{Target: nt}, nil
	})
}

// Symlink makes link point to target, replacing any link or file there
// atomically: a reader sees the old target or the new one, never none.
// target is a node path, absolute or relative to link's directory, and must
// stay inside the node; it need not exist. On disk the link is relative, so
// it resolves inside the node's directory for outside processes too.
func (h *Handle) Symlink(target, link string) error {
	return h.change(OpSymlink, link, func(name, np string) (Event, error) {
		nt, err := resolve(path.Dir(np), target)
		if err != nil {
			return Event{}, err
		}
		rel, err := filepath.Rel(path.Dir(np), nt)
		if err != nil {
			return Event{}, err
		}
		r := h.n.root
		if err := r.MkdirAll(path.Dir(name), 0o755); err != nil {
			return Event{}, err
		}
		tmp := tempName(name)
		r.Remove(tmp) // a leftover of an interrupted replace, if any
		if err := r.Symlink(rel, tmp); err != nil {
			return Event{}, err
		}
		if err := r.Rename(tmp, name); err != nil {
			r.Remove(tmp)
			return Event{}, err
		}
		return Event{Target: nt}, nil
	})
}

// Remove removes the file, link or whole directory at p; it must exist.
func (h *Handle) Remove(p string) error {
	return h.change(OpRemove, p, func(name, _ string) (Event, error) {
		r := h.n.root
		fi, err := r.Lstat(name)
		if err != nil {
			return Event{}, err
		}
		if fi.IsDir() {
			return Event{Detail: "directory"}, r.RemoveAll(name)
		}
		return Event{}, r.Remove(name)
	})
}

// read runs fn on the node path p with the node held.
func (h *Handle) read(op, p string, fn func(name, np string) error) error {
	np, err := nodePath(p)
	if err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	h.n.mu.Lock()
	defer h.n.mu.Unlock()
	if _, err := h.n.outside(h.ctx); err != nil {
		return &fs.PathError{Op: op, Path: p, Err: err}
	}
	if err := fn(rootName(np), np); err != nil {
		return pathError(op, np, err)
	}
	return nil
}

// ReadFile returns the content of the file at p.
func (h *Handle) ReadFile(p string) ([]byte, error) {
	var data []byte
	err := h.read("read", p, func(name, _ string) (err error) {
		data, err = h.n.root.ReadFile(name)
		return err
	})
	return data, err
}

// ReadDir returns the names in the directory at p, sorted.
func (h *Handle) ReadDir(p string) ([]string, error) {
	var names []string
	err := h.read("readdir", p, func(name, _ string) error {
		f, err := h.n.root.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		names, err = f.Readdirnames(-1)
		slices.Sort(names)
		return err
	})
	return names, err
}

// Readlink returns the node path the link at p points to.
func (h *Handle) Readlink(p string) (string, error) {
	var target string
	err := h.read("readlink", p, func(name, np string) error {
		t, err := h.n.root.Readlink(name)
		if err != nil {
			return err
		}
		if filepath.IsAbs(t) {
			// Written by an outside process: an absolute target is a
			// host path, never followed by the node.
			return fmt.Errorf("target %q: %w", t, ErrOutside)
		}
		target, err = resolve(path.Dir(np), t)
		return err
	})
	return target, err
}
