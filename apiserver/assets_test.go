package apiserver

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The versions the harness looks for must be the ones hack/envtest builds.
func TestVersionsMatchBuildModule(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "hack", "envtest", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod := string(data)
	for _, want := range []string{"k8s.io/kubernetes " + KubeVersion, "go.etcd.io/etcd/server/v3 " + EtcdVersion} {
		if !strings.Contains(mod, want) {
			t.Errorf("hack/envtest/go.mod does not require %s", want)
		}
	}
}

func TestFindAssetsRejectsIncompleteKubebuilderAssets(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBEBUILDER_ASSETS", dir)
	_, err := FindAssets(context.Background(), io.Discard)
	if !errors.Is(err, ErrNoAssets) || !strings.Contains(err.Error(), "kube-apiserver is missing") {
		t.Fatalf("want ErrNoAssets naming kube-apiserver, got %v", err)
	}
}

func TestFindAssetsUsesCache(t *testing.T) {
	t.Setenv("KUBEBUILDER_ASSETS", "")
	t.Setenv("OPCERT_CACHE_DIR", t.TempDir())
	dir := CacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(dir, b), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FindAssets(context.Background(), io.Discard)
	if err != nil || got != dir {
		t.Fatalf("FindAssets = %q, %v; want the cache %q", got, err, dir)
	}
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback listener:", err)
	}
	defer l.Close()
	err = portFree(l.Addr().(*net.TCPAddr).Port)
	if err == nil || !strings.Contains(err.Error(), "in use") || !strings.Contains(err.Error(), "--api-port") {
		t.Fatalf("want a port-in-use error that says what to do, got %v", err)
	}
}
