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
