package main

import (
	"archive/tar"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/crane"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// inspect loads the image tarball as a runtime would and checks what a user
// of the image relies on: its configuration (entrypoint, user, the
// KUBEBUILDER_ASSETS that points opcert at the API server binaries) and its
// files. Then it runs the image's own binaries out of the layer: opcert
// version must say the image's version and the API server versions that
// kube-apiserver and etcd report themselves.
func inspect(args []string) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	version := fs.String("version", "", "the version the image must carry")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || fs.NArg() != 1 {
		return errors.New("usage: inspect -version V IMAGE.tar")
	}
	img, err := crane.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	var problems []string
	wrong := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	c := cfg.Config
	if !slices.Equal(c.Entrypoint, []string{opcertPath}) {
		wrong("entrypoint %v, want [%s]", c.Entrypoint, opcertPath)
	}
	if c.User == "" || strings.HasPrefix(c.User, "0") || c.User == "root" {
		wrong("runs as %q, want a non-root user", c.User)
	}
	if !slices.Contains(c.Env, "KUBEBUILDER_ASSETS="+assetsDir) {
		wrong("env %v has no KUBEBUILDER_ASSETS=%s", c.Env, assetsDir)
	}
	if got := c.Labels["org.opencontainers.image.version"]; got != *version {
		wrong("version label %q, want %q", got, *version)
	}
	if layers, err := img.Layers(); err != nil || len(layers) == 0 || len(cfg.RootFS.DiffIDs) != len(layers) {
		wrong("%d layers (%v) for %d diff IDs in the configuration", len(layers), err, len(cfg.RootFS.DiffIDs))
	}
	if cfg.OS != "linux" {
		wrong("os %q, want linux", cfg.OS)
	}

	dir, err := os.MkdirTemp("", "opcert-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	files, err := extract(img, dir)
	if err != nil {
		return err
	}
	for _, name := range []string{opcertPath, assetsDir + "/kube-apiserver", assetsDir + "/etcd"} {
		if mode, ok := files[name]; !ok || mode&0o111 == 0 {
			wrong("%s is missing or not executable (mode %o)", name, mode)
		}
	}
	if mode, ok := files["/tmp"]; !ok || mode&0o1777 != 0o1777 {
		wrong("/tmp is missing or not world-writable with the sticky bit (mode %o)", mode)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return runBinaries(dir, *version)
}

// extract writes the image's regular files under dir (the layers
// flattened, as a runtime unpacks them) and returns every entry's mode by
// its path in the image.
func extract(img v1.Image, dir string) (map[string]int64, error) {
	rc := mutate.Extract(img)
	defer rc.Close()
	modes := map[string]int64{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return modes, nil
		}
		if err != nil {
			return nil, err
		}
		name := "/" + strings.TrimSuffix(strings.TrimPrefix(h.Name, "./"), "/")
		modes[name] = h.Mode
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(name)), tr); err != nil {
			return nil, err
		}
	}
}

func writeFile(path string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runBinaries runs the extracted opcert version and the API server
// binaries' --version, and checks that they agree with each other and with
// the image's version.
func runBinaries(root, version string) error {
	out := func(name string, args ...string) (string, error) {
		b, err := exec.Command(filepath.Join(root, filepath.FromSlash(name)), args...).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, b)
		}
		return string(b), nil
	}
	text, err := out(opcertPath, "version", "-o", "json")
	if err != nil {
		return err
	}
	var v struct{ Version, KubeAPIServer, Etcd string }
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return fmt.Errorf("opcert version -o json: %w: %s", err, text)
	}
	if v.Version != version {
		return fmt.Errorf("the image's opcert says version %q, want %q", v.Version, version)
	}
	kube, err := out(assetsDir+"/kube-apiserver", "--version")
	if err != nil {
		return err
	}
	etcd, err := out(assetsDir+"/etcd", "--version")
	if err != nil {
		return err
	}
	if !strings.Contains(kube, v.KubeAPIServer) || !strings.Contains(etcd, strings.TrimPrefix(v.Etcd, "v")) {
		return fmt.Errorf("opcert builds kube-apiserver %s and etcd %s, the image holds %q and %q",
			v.KubeAPIServer, v.Etcd, strings.TrimSpace(kube), strings.TrimSpace(firstLine(etcd)))
	}
	fmt.Printf("inspect: opcert %s with kube-apiserver %s and etcd %s; entrypoint, user, KUBEBUILDER_ASSETS and files as built\n", v.Version, v.KubeAPIServer, v.Etcd)
	return nil
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
