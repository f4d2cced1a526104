package apiserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The versions hack/envtest builds (a test keeps these in step with its go.mod).
const (
	KubeVersion = "v1.36.3"
	EtcdVersion = "v3.6.16"
)

// ErrNoAssets means no kube-apiserver and etcd binaries could be found or built.
var ErrNoAssets = errors.New("no envtest binaries")

// CacheDir is where hack/envtest/build.sh puts the binaries for the pinned versions.
func CacheDir() string {
	root := os.Getenv("OPCERT_CACHE_DIR")
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = filepath.Join(os.TempDir(), "opcert-cache")
		}
		root = filepath.Join(base, "opcert")
	}
	return filepath.Join(root, "envtest", "k8s-"+strings.TrimPrefix(KubeVersion, "v")+"-etcd-"+strings.TrimPrefix(EtcdVersion, "v"))
}

// FindAssets returns the directory holding kube-apiserver and etcd:
// KUBEBUILDER_ASSETS when set (setup-envtest users keep working), else the
// cache. When neither has them and the opcert source tree is at hand, it
// builds them with hack/envtest/build.sh, streaming its progress to progress.
func FindAssets(ctx context.Context, progress io.Writer) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		if err := hasBinaries(dir); err != nil {
			return "", fmt.Errorf("%w: KUBEBUILDER_ASSETS=%s: %v; unset it to use opcert's own build", ErrNoAssets, dir, err)
		}
		return dir, nil
	}
	dir := CacheDir()
	if hasBinaries(dir) == nil {
		return dir, nil
	}
	script, ok := findBuildScript()
	if !ok {
		return "", fmt.Errorf("%w in %s: run `make envtest` in the opcert source tree, or set KUBEBUILDER_ASSETS to a directory with kube-apiserver and etcd", ErrNoAssets, dir)
	}
	fmt.Fprintf(progress, "envtest: no kube-apiserver/etcd in %s; building them (about 10 minutes the first time)\n", dir)
	if err := build(ctx, script, progress); err != nil {
		return "", fmt.Errorf("%w: %s failed: %v", ErrNoAssets, script, err)
	}
	if err := hasBinaries(dir); err != nil {
		return "", fmt.Errorf("%w: %s ran but %v", ErrNoAssets, script, err)
	}
	return dir, nil
}

func hasBinaries(dir string) error {
	for _, b := range []string{"kube-apiserver", "etcd"} {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil {
			return fmt.Errorf("%s is missing", b)
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", b)
		}
	}
	return nil
}

// findBuildScript looks for hack/envtest/build.sh from the working directory up.
func findBuildScript() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, "hack", "envtest", "build.sh")
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func build(ctx context.Context, script string, progress io.Writer) error {
	cmd := exec.CommandContext(ctx, "bash", script)
	boundWait(cmd)
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		fmt.Fprintln(progress, sc.Text())
	}
	return cmd.Wait()
}
