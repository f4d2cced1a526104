// Command runcwrap is the container runtime hack/kind/dockerd.sh registers
// as dockerd's default: runc, with two capabilities taken out of every
// container it creates. These machines' capability bounding set lacks
// CAP_MAC_OVERRIDE, and the kernel refuses to apply CAP_SYS_RESOURCE, so
// runc fails to start a privileged container (a kind node) that asks for
// them with "unable to apply caps: operation not permitted". Nothing a
// node runs needs either: both only widen what root may do.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// dropped are the capabilities no container on this machine can be given.
var dropped = []string{"CAP_MAC_OVERRIDE", "CAP_SYS_RESOURCE"}

// runc is the real runtime, the one Debian's runc package installs.
const runc = "/usr/sbin/runc"

func main() {
	args := os.Args[1:]
	var err error
	switch {
	case creates(args):
		err = stripBundle(filepath.Join(bundle(args), "config.json"))
	case slices.Contains(args, "exec"):
		if p := flagValue(args, "--process", "-p"); p != "" {
			err = stripProcess(p)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "runcwrap:", err)
		os.Exit(1)
	}
	err = syscall.Exec(runc, append([]string{"runc"}, args...), os.Environ())
	fmt.Fprintln(os.Stderr, "runcwrap: exec", runc+":", err)
	os.Exit(1)
}

// creates tells whether runc is asked to create a container (create or
// run), the only commands that read the bundle's capabilities.
func creates(args []string) bool {
	return slices.Contains(args, "create") || slices.Contains(args, "run")
}

// bundle is the container's bundle directory: --bundle or -b, or the
// working directory, as runc reads it.
func bundle(args []string) string {
	if dir := flagValue(args, "--bundle", "-b"); dir != "" {
		return dir
	}
	return "."
}

// flagValue is the value of a flag of runc's (long or short, "--long=v"
// or "--long v"), "" if not given.
func flagValue(args []string, long, short string) string {
	for i, a := range args {
		if (a == long || a == short) && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, long+"="); ok {
			return v
		}
	}
	return ""
}

// stripBundle removes the dropped capabilities from the process of a
// bundle's configuration (config.json), keeping the rest as it is.
func stripBundle(path string) error {
	return rewrite(path, func(cfg map[string]json.RawMessage) error {
		if cfg["process"] == nil {
			return nil
		}
		var process map[string]json.RawMessage
		if err := json.Unmarshal(cfg["process"], &process); err != nil {
			return fmt.Errorf("process: %w", err)
		}
		if err := stripCapabilities(process); err != nil {
			return err
		}
		var err error
		cfg["process"], err = json.Marshal(process)
		return err
	})
}

// stripProcess removes them from the process an exec runs (--process),
// which a privileged docker exec gives every capability.
func stripProcess(path string) error {
	return rewrite(path, stripCapabilities)
}

// stripCapabilities removes the dropped capabilities from every set of a
// process's capabilities, if it has any.
func stripCapabilities(process map[string]json.RawMessage) error {
	if process["capabilities"] == nil {
		return nil
	}
	var caps map[string][]string
	if err := json.Unmarshal(process["capabilities"], &caps); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	for set, list := range caps {
		caps[set] = slices.DeleteFunc(list, func(c string) bool { return slices.Contains(dropped, c) })
	}
	var err error
	process["capabilities"], err = json.Marshal(caps)
	return err
}

// rewrite reads a JSON object from path, changes it and writes it back.
func rewrite(path string, change func(map[string]json.RawMessage) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := change(obj); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if data, err = json.Marshal(obj); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o600)
}
