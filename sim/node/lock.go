package node

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// ErrLocked is returned by Lock while the lock is held, by anyone: the lock
// does not nest, so an actor that takes it twice learns of its own bug.
var ErrLocked = errors.New("lock is held")

// ErrNotHeld is returned by Unlock from an actor that does not hold the lock.
var ErrNotHeld = errors.New("lock is not held by this actor")

// Lock takes the lock file at p (see LockPath) for the handle's actor, or
// fails at once with ErrLocked: there is no waiting in virtual time, an
// actor that must wait tries again at a later instant. The file's content is
// the holder's name. The lock is advisory (see the package doc).
func (h *Handle) Lock(p string) error {
	return h.change(OpLock, p, func(name, _ string) (Event, error) {
		r := h.n.root
		if err := r.MkdirAll(path.Dir(name), 0o755); err != nil {
			return Event{}, err
		}
		f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return Event{}, fmt.Errorf("%w by %q", ErrLocked, holder(r, name))
		}
		if err != nil {
			return Event{}, err
		}
		_, err = f.WriteString(h.actor + "\n")
		if err = errors.Join(err, f.Close()); err != nil {
			r.Remove(name)
			return Event{}, err
		}
		return Event{}, nil
	})
}

// Unlock releases the lock file at p, which the handle's actor must hold.
// Breaking someone else's lock is a Remove, and shows as one.
func (h *Handle) Unlock(p string) error {
	return h.change(OpUnlock, p, func(name, _ string) (Event, error) {
		r := h.n.root
		if _, err := r.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return Event{}, fmt.Errorf("%w: it is free", ErrNotHeld)
		}
		if who := holder(r, name); who != h.actor {
			return Event{}, fmt.Errorf("%w: %q holds it", ErrNotHeld, who)
		}
		return Event{}, r.Remove(name)
	})
}

// holder reads who holds a lock file ("" if unreadable).
func holder(r *os.Root, name string) string {
	data, _ := r.ReadFile(name)
	return strings.TrimSuffix(string(data), "\n")
}
