package main

import (
	"archive/tar"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/google/go-containerregistry/pkg/crane"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Where the image keeps opcert and the API server binaries; inspect reads
// the same names back.
const (
	opcertPath = "/usr/local/bin/opcert"
	assetsDir  = "/usr/local/share/opcert/envtest" // KUBEBUILDER_ASSETS in the image
	workDir    = "/work"                           // where reports go unless --out says otherwise
	nonRoot    = 65532                             // the uid and gid the image runs as
)

// image builds opcert's container image from scratch: one layer with opcert,
// kube-apiserver and etcd (all static), a writable /tmp for the API
// server's run directories and a work directory. No base image is pulled:
// no registry is needed to build it, and nothing is in it but what opcert
// runs. The image is for the machine's architecture, the one the API
// server binaries were built for.
func image(args []string) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	version := fs.String("version", "", "opcert's version (the image's tag)")
	commit := fs.String("commit", "", "the commit it is built from")
	date := fs.String("date", "", "the commit's date, RFC 3339: the image's creation time")
	opcert := fs.String("opcert", "", "the opcert binary, built for linux/"+runtime.GOARCH)
	assets := fs.String("assets", "", "the directory holding kube-apiserver and etcd")
	out := fs.String("out", "", "the image tarball to write")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *version == "" || *opcert == "" || *assets == "" || *out == "" {
		return errors.New("-version, -opcert, -assets and -out are required")
	}
	created, err := time.Parse(time.RFC3339, *date)
	if err != nil {
		return fmt.Errorf("-date: %w", err)
	}
	files := map[string]string{
		opcertPath:                    *opcert,
		assetsDir + "/kube-apiserver": filepath.Join(*assets, "kube-apiserver"),
		assetsDir + "/etcd":           filepath.Join(*assets, "etcd"),
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		r, w := io.Pipe()
		go func() { w.CloseWithError(writeLayer(w, files, created)) }()
		return r, nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	// The configuration AppendLayers made holds the layer's diff ID; the
	// rest is opcert's.
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS, cfg.Created = runtime.GOARCH, "linux", v1.Time{Time: created}
	cfg.Config = v1.Config{
		Entrypoint: []string{opcertPath},
		Cmd:        []string{"--help"},
		Env:        []string{"KUBEBUILDER_ASSETS=" + assetsDir, "HOME=" + workDir, "TMPDIR=/tmp"},
		User:       fmt.Sprintf("%d:%d", nonRoot, nonRoot),
		WorkingDir: workDir,
		Labels: map[string]string{
			"org.opencontainers.image.title":    "opcert",
			"org.opencontainers.image.version":  *version,
			"org.opencontainers.image.revision": *commit,
			"org.opencontainers.image.created":  *date,
			"org.opencontainers.image.source":   "https://github.com/opcert/opcert",
		},
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	tag := "opcert:" + *version
	if err := crane.Save(img, tag, *out); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("image: %s (%s) in %s\n", tag, digest, *out)
	return nil
}

// writeLayer writes the layer's tar: the directories, then each file from
// the host with mode 0755, every entry dated by the commit so that the same
// commit gives the same layer.
func writeLayer(w io.Writer, files map[string]string, created time.Time) error {
	tw := tar.NewWriter(w)
	dirs := []struct {
		name  string
		mode  int64
		owner int
	}{
		{"usr/", 0o755, 0}, {"usr/local/", 0o755, 0}, {"usr/local/bin/", 0o755, 0},
		{"usr/local/share/", 0o755, 0}, {"usr/local/share/opcert/", 0o755, 0}, {"usr/local/share/opcert/envtest/", 0o755, 0},
		{"tmp/", 0o1777, 0}, {"work/", 0o755, nonRoot},
	}
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name, Mode: d.mode, Uid: d.owner, Gid: d.owner, ModTime: created}); err != nil {
			return err
		}
	}
	for _, name := range []string{opcertPath, assetsDir + "/kube-apiserver", assetsDir + "/etcd"} {
		if err := addFile(tw, name[1:], files[name], created); err != nil {
			return err
		}
	}
	return tw.Close()
}

func addFile(tw *tar.Writer, name, from string, created time.Time) error {
	f, err := os.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: st.Size(), ModTime: created}); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}
