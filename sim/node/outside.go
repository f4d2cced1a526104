package node

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Changes made from outside: a process opcert starts (a team's
// startup-monitor) writes the node's directory with plain file calls, not
// through a Handle, so its changes make no events by themselves. Once
// Track is called the node keeps what its handles last left at each path,
// and Outside reports what differs on disk as changes by the process, as
// if a handle had made them: a file written (its Detail what note says of
// it), a link made, a file removed, the installer lock taken or released.
//
// Directories are not reported (a handle makes the ones a change needs as
// part of it), nor are names beginning with a dot: a process's temporary
// files, renamed into place, as the kubelet skips them. Changes found by
// one look are reported in the order they were made (order.go), so that a
// link made before a manifest is removed is reported before the removal.

// entry is what a path held: a file's content digest or a link's target.
type entry struct {
	link string
	sum  [sha256.Size]byte
}

// outsider is who changes the node from outside, and what its writes are.
type outsider struct {
	actor string
	note  Note
	seen  map[string]entry // what the handles (and earlier looks) left
	locks map[string]bool  // lock files it took
	order *order
}

// Track starts keeping what the handles leave on disk, from what is there
// now (the node's image: nobody's act); what differs later is actor's
// doing, its writes described by note. From then on every handle's read
// or change first reports what changed from outside (Outside), so that
// nothing acts on a change the timeline does not hold yet.
func (n *Node) Track(actor string, note Note) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	ord, err := newOrder(n.dir)
	if err != nil {
		return err
	}
	seen, err := n.scan()
	if err != nil {
		ord.close()
		return err
	}
	o := &outsider{actor: actor, note: note, seen: map[string]entry{}, locks: map[string]bool{}, order: ord}
	for p, e := range seen {
		o.seen[p] = e
	}
	n.out = o
	return nil
}

// scan reads every file and link under the root but dot names.
func (n *Node) scan() (map[string]entry, error) {
	out := map[string]entry{}
	err := filepath.WalkDir(n.dir, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // removed while walking: the next look sees it gone
		}
		if err != nil {
			return err
		}
		if p == n.dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(n.dir, p)
		if err != nil {
			return err
		}
		np := "/" + filepath.ToSlash(rel)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		var f entry
		if fi.Mode()&fs.ModeSymlink != 0 {
			if f.link, err = os.Readlink(p); err != nil {
				return ignoreGone(err)
			}
		} else {
			data, err := os.ReadFile(p)
			if err != nil {
				return ignoreGone(err)
			}
			f.sum = sha256.Sum256(data)
		}
		out[np] = f
		return nil
	})
	return out, err
}

func ignoreGone(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// refresh keeps what a handle's change left at np (and under it).
func (n *Node) refresh(np string) {
	if n.out == nil || np == "" {
		return
	}
	seen := n.out.seen
	for p := range seen {
		if p == np || strings.HasPrefix(p, np+"/") {
			delete(seen, p)
		}
	}
	host := filepath.Join(n.dir, filepath.FromSlash(np[1:]))
	fi, err := os.Lstat(host)
	if err != nil {
		return
	}
	if !fi.IsDir() {
		if e, ok := entryOf(host, fi); ok {
			seen[np] = e
		}
		return
	}
	_ = filepath.WalkDir(host, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(n.dir, p)
		if e, ok := entryOf(p, fi); ok {
			seen["/"+filepath.ToSlash(rel)] = e
		}
		return nil
	})
}

func entryOf(host string, fi fs.FileInfo) (entry, bool) {
	if fi.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Readlink(host)
		return entry{link: t}, err == nil
	}
	data, err := os.ReadFile(host)
	return entry{sum: sha256.Sum256(data)}, err == nil
}

// Note says what a file written from outside is, for its event's Detail
// ("revision=3"); "" gives its size.
type Note func(p string, data []byte) string

// Outside reports what changed on disk from outside since the last look,
// through the sink with ctx (the context of the work that looks), and
// returns how many changes. It does nothing until Track is called.
func (n *Node) Outside(ctx context.Context) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.outside(ctx)
}

// Differs tells, without reporting anything, whether something changed
// from outside since the last look: a poller's question, whose answer is
// to have an actor look (with its context) soon.
func (n *Node) Differs() (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.out == nil {
		return false, nil
	}
	if n.out.order.drain(n.dir); len(n.out.order.locks) > 0 {
		return true, nil
	}
	now, err := n.scan()
	if err != nil || len(now) != len(n.out.seen) {
		return err == nil, err
	}
	for p, f := range now {
		if old, ok := n.out.seen[p]; !ok || old != f {
			return true, nil
		}
	}
	return false, nil
}

// ReleaseOutside removes the lock files taken from outside and not
// released, each reported as an unlock by the outsider, as the kernel
// releases a dead process's lock: call it once the process is gone.
func (n *Node) ReleaseOutside(ctx context.Context) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.out == nil {
		return nil
	}
	if _, err := n.outside(ctx); err != nil {
		return err
	}
	var errs []error
	for _, p := range slices.Sorted(maps.Keys(n.out.locks)) {
		if err := n.root.Remove(rootName(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		n.refresh(p)
		n.out.order.own(n.dir)
		delete(n.out.locks, p)
		n.report(ctx, Event{Time: n.clock.Now(), Actor: n.out.actor, Op: OpUnlock, Path: p})
	}
	return errors.Join(errs...)
}

func (n *Node) report(ctx context.Context, e Event) {
	if n.sink != nil {
		n.sink(ctx, e)
	}
}

// settleWalks bounds the walks of one look (outside): a process that
// never stops writing is filed as the last walk found it.
const settleWalks = 20

// outside is Outside with the node held.
func (n *Node) outside(ctx context.Context) (int, error) {
	o := n.out
	if o == nil {
		return 0, nil
	}
	// The events of every change the walk sees are queued before it ends.
	// A walk after which more came may have seen some of their changes
	// and not others (a manifest not yet renamed into place, the lock
	// already released): walk again until none came meanwhile, so that
	// the walk holds exactly what the numbered events did. A process
	// makes its changes in bursts of microseconds: a few walks at most.
	o.order.drain(n.dir)
	var now map[string]entry
	for range settleWalks {
		var err error
		if now, err = n.scan(); err != nil {
			return 0, err
		}
		if !o.order.drain(n.dir) {
			break
		}
	}
	// Lock files are taken and released as the queue says, each in its
	// place; other changes as the comparison with the disk finds them.
	type change struct {
		Event
		seq int64
	}
	var evs []change
	locked := map[string]bool{}
	for _, l := range o.order.locks {
		op := OpUnlock
		if l.taken {
			op = OpLock
		}
		evs, locked[l.path] = append(evs, change{Event{Op: op, Path: l.path}, l.seq}), true
	}
	o.order.locks = nil
	for p, f := range now {
		old, ok := o.seen[p]
		if ok && old == f || locked[p] {
			continue
		}
		e, err := n.outsideWrite(p, f, ok)
		if err != nil {
			return 0, err
		}
		evs = append(evs, change{e, o.order.of(p)})
	}
	for p := range o.seen {
		if _, ok := now[p]; ok || locked[p] {
			continue
		}
		op := OpRemove
		if o.locks[p] {
			op = OpUnlock
		}
		evs = append(evs, change{Event{Op: op, Path: p}, o.order.of(p)})
	}
	slices.SortStableFunc(evs, func(a, b change) int {
		if c := cmp.Compare(a.seq, b.seq); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	for p := range locked {
		if e, ok := now[p]; ok {
			o.seen[p] = e
		} else {
			delete(o.seen, p)
		}
	}
	t := n.clock.Now()
	for _, c := range evs {
		e := c.Event
		e.Time, e.Actor = t, o.actor
		switch e.Op {
		case OpUnlock:
			delete(o.locks, e.Path)
		case OpLock:
			o.locks[e.Path] = true
		case OpRemove:
			delete(o.seen, e.Path)
		default:
			o.seen[e.Path] = now[e.Path]
		}
		n.report(ctx, e)
	}
	return len(evs), nil
}

// outsideWrite is the event of a file or link found new or changed at p.
func (n *Node) outsideWrite(p string, f entry, existed bool) (Event, error) {
	if f.link != "" {
		target := f.link
		if !filepath.IsAbs(target) {
			// Relative, as the node's links: a node path. An absolute one
			// is a host path the node never follows (Readlink), shown as is.
			if t, err := resolve(path.Dir(p), target); err == nil {
				target = t
			}
		}
		return Event{Op: OpSymlink, Path: p, Target: target}, nil
	}
	if path.Dir(p) == LockDir && !existed {
		return Event{Op: OpLock, Path: p}, nil
	}
	data, err := os.ReadFile(filepath.Join(n.dir, filepath.FromSlash(p[1:])))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Event{}, err
	}
	detail := fmt.Sprintf("%d bytes", len(data))
	if n.out.note != nil {
		if d := n.out.note(p, data); d != "" {
			detail = d
		}
	}
	return Event{Op: OpWrite, Path: p, Detail: detail}, nil
}
