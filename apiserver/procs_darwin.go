package apiserver

import (
	"bytes"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// zombie is darwin's process state of a process that ended and was not
// reaped yet (SZOMB in sys/proc.h).
const zombie = 5

// stat reads a process's start time (seconds.microseconds since the epoch)
// and state ('Z' for a zombie) from the kernel's process table.
func stat(pid int) (start string, state byte, err error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", 0, err
	}
	if k.Proc.P_pid != int32(pid) {
		return "", 0, fmt.Errorf("no process %d", pid)
	}
	state = 'R'
	if k.Proc.P_stat == zombie {
		state = 'Z'
	}
	t := k.Proc.P_starttime
	return fmt.Sprintf("%d.%06d", t.Sec, t.Usec), state, nil
}

// killCarrying sends SIGKILL to every process whose environment holds the
// variable setting v (NAME=value), read with kern.procargs2 (the processes
// of this user; others' are not readable and not opcert's).
func killCarrying(v string) {
	mark := []byte(v + "\x00")
	all, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return
	}
	for _, k := range all {
		pid := int(k.Proc.P_pid)
		if pid <= 0 || pid == os.Getpid() {
			continue
		}
		args, err := unix.SysctlRaw("kern.procargs2", pid)
		if err != nil || !bytes.HasPrefix(args, mark) && !bytes.Contains(args, append([]byte{0}, mark...)) {
			continue
		}
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
