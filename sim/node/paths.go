package node

import (
	"errors"
	"fmt"
	"strings"
)

// The node paths of seed 003 (decision 003, conformance/staticpod/README.md:
// manifests in /etc/kubernetes/manifests, see the package doc).
const (
	ManifestsDir  = "/etc/kubernetes/manifests"
	StaticPodsDir = "/etc/kubernetes/static-pods"
	LastKnownGood = StaticPodsDir + "/last-known-good"
	LockDir       = "/var/lock"
	LogDir        = "/var/log"
)

// ManifestPath is where the kubelet reads the operand's pod manifest.
func ManifestPath(operand string) string {
	return ManifestsDir + "/" + operand + "-pod.yaml"
}

// MonitorManifestPath is where the installer puts the operand's
// startup-monitor pod manifest, which the monitor removes once done.
func MonitorManifestPath(operand string) string {
	return ManifestsDir + "/" + operand + "-startup-monitor-pod.yaml"
}

// RevisionDir is a revision's resource directory: its pod manifest and its
// configmaps and secrets as files.
func RevisionDir(operand string, revision int) string {
	return fmt.Sprintf("%s/%s-pod-%d", StaticPodsDir, operand, revision)
}

// RevisionManifestPath is the copy of a revision's pod manifest kept in its
// resource directory, the one a fallback copies back.
func RevisionManifestPath(operand string, revision int) string {
	return RevisionDir(operand, revision) + "/" + operand + "-pod.yaml"
}

// ConfigMapPath is the file holding one key of a configmap of a revision.
func ConfigMapPath(operand string, revision int, name, key string) string {
	return RevisionDir(operand, revision) + "/configmaps/" + name + "/" + key
}

// SecretPath is the file holding one key of a secret of a revision.
func SecretPath(operand string, revision int, name, key string) string {
	return RevisionDir(operand, revision) + "/secrets/" + name + "/" + key
}

// LockPath is the installer lock the installer and the startup-monitor share.
func LockPath(operand string) string {
	return LockDir + "/" + operand + "-installer.lock"
}

// TerminationLogPath is the operand's termination log, one line per start.
func TerminationLogPath(operand string) string {
	return LogDir + "/" + operand + "/termination.log"
}

// ErrOutside is returned for a path or symlink target that would leave the
// node's root.
var ErrOutside = errors.New("outside the node")

// resolve turns p into a clean absolute node path, relative ones taken from
// dir. Unlike path.Clean, which clamps "/.." to "/", it refuses a ".." above
// the root: on disk that would be a way out of the node.
func resolve(dir, p string) (string, error) {
	if p == "" {
		return "", errors.New("empty path")
	}
	var elems []string
	if !strings.HasPrefix(p, "/") {
		elems = strings.FieldsFunc(dir, func(r rune) bool { return r == '/' })
	}
	for _, e := range strings.Split(p, "/") {
		switch e {
		case "", ".":
		case "..":
			if len(elems) == 0 {
				return "", fmt.Errorf("%q: %w", p, ErrOutside)
			}
			elems = elems[:len(elems)-1]
		default:
			elems = append(elems, e)
		}
	}
	return "/" + strings.Join(elems, "/"), nil
}

// nodePath checks that p is an absolute node path and cleans it.
func nodePath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q: node paths are absolute", p)
	}
	return resolve("/", p)
}

// rootName is a clean node path as os.Root names it.
func rootName(p string) string {
	if p == "/" {
		return "."
	}
	return p[1:]
}
