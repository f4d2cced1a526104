package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/opcert/opcert/apiserver"
)

// kubeconfigOutUser is the user --kubeconfig-out's kubeconfig
// authenticates as on opcert's API server: an administrator
// (system:masters) of a server that lives as long as the run, with no
// process of the run's (whose writes are put down to the user that made
// them) behind it.
const kubeconfigOutUser = "opcert-kubeconfig-out"

// checkKubeconfigOut refuses, before anything starts, a --kubeconfig-out
// opcert cannot honour: on a cluster (whose kubeconfig the user has), or
// at a path that exists (opcert writes a file of its own and removes it at
// the end: it never overwrites one).
func checkKubeconfigOut(path string, onCluster bool) error {
	switch _, err := os.Lstat(path); {
	case path == "":
		return nil
	case onCluster:
		return errors.New("--kubeconfig-out writes a kubeconfig of opcert's own API server; with --kubeconfig the run is on your cluster, whose kubeconfig you have")
	case err == nil:
		return fmt.Errorf("--kubeconfig-out %s exists: give a path that does not (opcert writes the file while the run lasts and removes it at the end)", path)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--kubeconfig-out: %w", err)
	}
	return nil
}

// writeKubeconfigOut writes a kubeconfig of an administrator of w to path,
// readable by its owner only, and returns what removes it: the run calls
// it when it ends, and a second signal, which exits at once, removes the
// file too (removeStaged). Only a SIGKILL leaves it, naming a server that
// is gone with its certificates.
func writeKubeconfigOut(w *apiserver.Server, path string) (remove func(), err error) {
	data, _, err := w.AddUserInGroups(kubeconfigOutUser, "", []string{"system:masters"})
	if err != nil {
		return nil, envError{err}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, envError{fmt.Errorf("--kubeconfig-out: %w", err)}
	}
	staged.Lock()
	staged.files = append(staged.files, path)
	staged.Unlock()
	remove = func() {
		staged.Lock()
		defer staged.Unlock()
		staged.files = slices.DeleteFunc(staged.files, func(f string) bool { return f == path })
		_ = os.Remove(path)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		remove()
		return nil, envError{fmt.Errorf("--kubeconfig-out: %w", err)}
	}
	if err := f.Close(); err != nil {
		remove()
		return nil, envError{fmt.Errorf("--kubeconfig-out: %w", err)}
	}
	return remove, nil
}
