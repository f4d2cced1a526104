package apiserver

import "golang.org/x/sys/unix"

// BecomeSubreaper does nothing on darwin, which has no child subreaper: a
// descendant that detaches from its parent (setsid, a double fork) and
// outlives it is reparented to launchd, where Descendants no longer finds
// it. KillDescendants still kills every descendant that is below opcert
// when it runs (the whole tree in each round), and the next opcert's
// start-up kills those of a dead run that carry its run directory (sweep).
func BecomeSubreaper() {}

// Descendants lists the processes below pid that are not zombies, from
// the parent links of the kernel's process table.
func Descendants(pid int) []int {
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	dead := map[int]bool{}
	for _, k := range all {
		self := int(k.Proc.P_pid)
		children[int(k.Eproc.Ppid)] = append(children[int(k.Eproc.Ppid)], self)
		dead[self] = k.Proc.P_stat == zombie
	}
	return below(pid, children, dead)
}
