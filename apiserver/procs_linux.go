package apiserver

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// stat reads a process's start time and state ('Z' for a zombie).
func stat(pid int) (start string, state byte, err error) {
	f, err := statFields(pid)
	if err != nil {
		return "", 0, err
	}
	if len(f) < 20 {
		return "", 0, errors.New("short /proc stat")
	}
	return f[19], f[0][0], nil
}

// statFields are the fields of a process's /proc stat from its state on
// (field 3: the state, the parent's pid, ..., field 22 at index 19: the
// start time). The command name before them, in parentheses, may hold
// spaces: fields count from after its closing parenthesis.
func statFields(pid int) ([]string, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return nil, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return nil, errors.New("short /proc stat")
	}
	return f, nil
}

// killCarrying sends SIGKILL to every process whose environment holds the
// variable setting v (NAME=value).
func killCarrying(v string) {
	mark := []byte(v + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range procs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err != nil || !bytes.HasPrefix(env, mark) && !bytes.Contains(env, append([]byte{0}, mark...)) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(d)); err == nil && pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
