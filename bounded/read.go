package bounded

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// TooLargeError is the error for an input larger than its limit.
type TooLargeError struct {
	Name  string // the input, as the user gave it
	Limit int64  // bytes
}

// Error names the input and its limit, and says what to do instead.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the most opcert reads of it; split it or give a smaller one", e.Name, Size(e.Limit))
}

// NotRegularError is the error for a path that is not a regular file.
type NotRegularError struct {
	// Name is the path as given.
	Name string
	// Mode is what the path is instead (a directory, a device, a pipe).
	Mode fs.FileMode
}

// Error says what the path is and why opcert does not read it.
func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: opcert reads only regular files, which end, and never waits on a pipe or a device", e.Name, describeMode(e.Mode))
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// Size writes a limit for messages: "8 MiB", "512 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens the regular file at path for reading, refusing anything else
// without blocking: it is opened non-blocking (a FIFO that appeared after
// the check does not hold the open) and checked again once open.
func Open(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Name: path, Mode: fi.Mode()}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = &NotRegularError{Name: path, Mode: fi.Mode()}
		}
		return nil, err
	}
	return f, nil
}

// Check refuses a path that is not a regular file or is larger than
// limit, for a file another library reads (a kubeconfig, which client-go
// reads whole, without a limit).
func Check(path string, limit int64) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return &NotRegularError{Name: path, Mode: fi.Mode()}
	case fi.Size() > limit:
		return &TooLargeError{Name: path, Limit: limit}
	}
	return nil
}

// ReadFile reads the regular file at path, at most limit bytes.
func ReadFile(ctx context.Context, path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, &TooLargeError{Name: path, Limit: limit}
	}
	return ReadAll(ctx, f, limit, path)
}

// ReadFileFS reads the regular file name of fsys, at most limit bytes,
// as ReadFile does a path (a symbolic link is followed).
func ReadFileFS(ctx context.Context, fsys fs.FS, name string, limit int64) ([]byte, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Name: name, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		return nil, &TooLargeError{Name: name, Limit: limit}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(ctx, f, limit, name)
}

// ReadAll reads r to its end, at most limit bytes (more is a
// TooLargeError naming name). When ctx is done first it returns ctx's
// cause at once; a read blocked in r (a pipe nobody writes to) is left
// to end with the process, which is about to.
func ReadAll(ctx context.Context, r io.Reader, limit int64, name string) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := io.ReadAll(Reader(ctx, io.LimitReader(r, limit+1)))
		done <- result{data, err}
	}()
	select {
	case res := <-done:
		if res.err == nil && int64(len(res.data)) > limit {
			return nil, &TooLargeError{Name: name, Limit: limit}
		}
		return res.data, res.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Reader reads r until ctx is done, then returns ctx's cause: a stream
// read to its end (a timeline of millions of events) stops at the next
// read after Ctrl-C.
func Reader(ctx context.Context, r io.Reader) io.Reader { return &ctxReader{ctx: ctx, r: r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, context.Cause(c.ctx)
	}
	return c.r.Read(p)
}
