package process

import "syscall"

// sysProcAttr puts the process in a group of its own. Darwin has no
// parent-death signal: every way opcert ends but SIGKILL kills the group
// (Kill, Stop, and the signal handling of cmd/opcert), but after a SIGKILL
// of opcert the process runs on, reparented to launchd (docs/install.md).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
