package process

import "syscall"

// sysProcAttr puts the process in a group of its own and has the kernel
// kill it when opcert dies, even by SIGKILL.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
