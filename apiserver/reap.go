package apiserver

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// reapRounds bounds KillDescendants: a descendant forking as fast as it is
// killed is given up on after this many rounds.
const (
	reapRounds = 40
	reapPause  = 25 * time.Millisecond
)

// KillDescendants sends SIGKILL to every live descendant of opcert until
// none is left (on linux a killed process's children are reparented to
// opcert, the subreaper, and killed in the next round).
func KillDescendants() {
	for range reapRounds {
		live := Descendants(os.Getpid())
		if len(live) == 0 {
			return
		}
		for _, pid := range live {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		<-time.After(reapPause)
	}
}

// below walks the process tree from pid, given each process's children,
// and lists the descendants that are not zombies (a zombie's children
// are still walked): each platform reads the tree its own way.
func below(pid int, children map[int][]int, zombie map[int]bool) []int {
	var out []int
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if !zombie[p] {
			out = append(out, p)
		}
		queue = append(queue, children[p]...)
	}
	return out
}
