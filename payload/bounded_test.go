package payload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opcert/opcert/bounded"
)

// readWithin is Read of dir, failing the test when it takes more than 10s
// (it blocked or read without end).
func readWithin(t *testing.T, ctx context.Context, dir string) (*Payload, error) {
	t.Helper()
	type result struct {
		p   *Payload
		err error
	}
	done := make(chan result, 1)
	go func() { p, err := Read(ctx, dir); done <- result{p, err} }()
	select {
	case r := <-done:
		return r.p, r.err
	case <-time.After(10 * time.Second):
		t.Fatalf("Read(%s) still running after 10s", dir)
		return nil, nil
	}
}

// A .yaml that is a link to /dev/zero, or a FIFO, is a problem of its own
// found at once: it is neither read without end nor waited on.
func TestReadSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), fmt.Appendf(nil, cm, "a"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "b.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "c.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := readWithin(t, t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pr := range p.Problems {
		got = append(got, pr.String())
	}
	want := []string{
		"b.yaml:1: cannot be read: b.yaml is a character device, not a regular file",
		"c.yaml:1: cannot be read: c.yaml is a FIFO (named pipe), not a regular file",
	}
	if len(p.Manifests) != 1 || len(got) != 2 || !strings.HasPrefix(got[0], want[0]) || !strings.HasPrefix(got[1], want[1]) {
		t.Errorf("manifests %d, problems\n  %s\nwant 1 and problems starting\n  %s", len(p.Manifests), strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// A file larger than MaxFileBytes is refused, not read: the sweep's error
// names it and the limit.
func TestReadRefusesALargeFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readWithin(t, t.Context(), dir)
	var big *bounded.TooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "big.yaml is larger than 8 MiB") {
		t.Errorf("got %v, want big.yaml refused as larger than 8 MiB", err)
	}
}

// Once its context is done (Ctrl-C), the sweep stops with its cause.
func TestReadStopsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	for i := range 3 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.yaml", i)), fmt.Appendf(nil, cm, "a"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(stop)
	if _, err := readWithin(t, ctx, dir); !errors.Is(err, stop) {
		t.Errorf("got %v, want the context's cause", err)
	}
}
