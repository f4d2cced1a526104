package apiserver

import (
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// BecomeSubreaper makes opcert the subreaper of every process it starts: a descendant that
// leaves its process group and session (an operator started through
// setsid, a daemon that double-forks) is reparented to opcert when its
// parent dies, not to init, and every exit path of opcert (the end of a
// command, a second signal) kills what is left of its descendants.
//
// A subreaper, not a cgroup of the run: it needs no privilege and no
// delegated cgroup tree, which CI containers and laptops rarely give.
// What it cannot do is outlive opcert: after a SIGKILL of opcert its
// direct children die by their parent-death signal, but a descendant that
// had detached from them is reparented to init, until the next opcert's
// start-up kills it (the run directories' sweep). Orphans reparented to
// opcert during a run are not reaped until it exits (reaping them then
// would race os/exec's own waits).
func BecomeSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// Descendants lists the processes below pid that are not zombies, from
// the parent links in /proc.
func Descendants(pid int) []int {
	children := map[int][]int{}
	zombie := map[int]bool{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		self, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		f, err := statFields(self)
		if err != nil {
			continue
		}
		parent, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		children[parent] = append(children[parent], self)
		zombie[self] = f[0] == "Z"
	}
	return below(pid, children, zombie)
}
