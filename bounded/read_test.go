package bounded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"
)

// A FIFO is refused at once, not opened (which would block until a writer
// comes); /dev/zero, also through a symbolic link, is refused, not read
// for ever.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "scenario.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero.yaml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", link: "a character device", dir: "a directory"} {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(context.Background(), path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			var nr *NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s: got %v, want a refusal naming it as %s", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadFile still blocked after 5s", path)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, make([]byte, 2048), 0o600); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadFile(context.Background(), path, 2048); err != nil || len(data) != 2048 {
		t.Errorf("at the limit: %d bytes, %v; want all of it", len(data), err)
	}
	_, err := ReadFile(context.Background(), path, 1024)
	var big *TooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "1 KiB") {
		t.Errorf("over the limit: %v, want a TooLargeError saying 1 KiB", err)
	}
}

func TestReadFileFS(t *testing.T) {
	fsys := fstest.MapFS{"a.yaml": {Data: []byte("abc")}, "d": {Mode: os.ModeDir}, "p": {Mode: os.ModeNamedPipe}}
	if data, err := ReadFileFS(context.Background(), fsys, "a.yaml", 3); err != nil || string(data) != "abc" {
		t.Errorf("a.yaml: %q, %v", data, err)
	}
	var big *TooLargeError
	if _, err := ReadFileFS(context.Background(), fsys, "a.yaml", 2); !errors.As(err, &big) {
		t.Errorf("a.yaml over 2 bytes: %v, want TooLargeError", err)
	}
	var nr *NotRegularError
	for _, name := range []string{"d", "p"} {
		if _, err := ReadFileFS(context.Background(), fsys, name, 10); !errors.As(err, &nr) {
			t.Errorf("%s: %v, want NotRegularError", name, err)
		}
	}
}

// A pipe nobody writes to does not hold ReadAll once its context is
// cancelled (Ctrl-C on "opcert olm explain" reading a terminal), and the
// cause is returned.
func TestReadAllCancelled(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
	start := time.Now()
	_, err = ReadAll(ctx, r, 1<<20, "standard input")
	if !errors.Is(err, stop) {
		t.Errorf("got %v, want the context's cause", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("returned after %s", d)
	}
}

// An endless stream is cut at its limit.
func TestReadAllEndless(t *testing.T) {
	_, err := ReadAll(context.Background(), zeros{}, 1<<20, "standard input")
	var big *TooLargeError
	if !errors.As(err, &big) || !strings.Contains(err.Error(), "standard input is larger than 1 MiB") {
		t.Errorf("got %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A stream read through Reader stops at the next read once its context
// is done, with the context's cause.
func TestReaderStops(t *testing.T) {
	stop := errors.New("interrupted")
	ctx, cancel := context.WithCancelCause(context.Background())
	r := Reader(ctx, zeros{})
	buf := make([]byte, 8)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel(stop)
	if _, err := r.Read(buf); !errors.Is(err, stop) {
		t.Errorf("after cancel: %v, want the cause", err)
	}
}
