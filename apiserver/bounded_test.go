package apiserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A wrapper whose child hangs holding its output (here sh waiting on
// sleep) ends with its probe's timeout: the whole group is killed and
// Wait stops waiting for the output. Before, Output waited for the
// child's copy of the pipe for ever.
func TestVersionOfAWrapperWhoseChildHangs(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "kube-apiserver")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nsleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	done := make(chan string, 1)
	go func() { done <- version(ctx, bin, "--version") }()
	select {
	case v := <-done:
		if v != "unknown" {
			t.Errorf("version %q, want unknown", v)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("version still waiting 10s after a 1s timeout")
	}
}
