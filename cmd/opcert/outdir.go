package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The report directory: opcert replaces --out only when it is a directory
// opcert wrote (it carries the marker file), an empty directory, or absent.
// Anything else is the user's and is never touched. Reports are written to
// a staging directory beside it and swapped in only when complete, so a run
// that fails, errs or is interrupted leaves --out as it was.
const (
	marker     = ".opcert-report"
	markerText = "This directory was written by opcert; opcert run --out replaces it.\n"
	stagingTag = ".tmp-" // .<base>.tmp-<pid>-<random>
)

// checkOut refuses, before any work, an --out that opcert must not replace.
func checkOut(out string) error {
	if strings.TrimSpace(out) == "" {
		return errors.New("--out is empty: give a directory for the reports, e.g. --out opcert-report")
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if cwd, err := os.Getwd(); err == nil && within(cwd, abs) {
		return fmt.Errorf("--out %s is the working directory or one that holds it; opcert replaces the report directory as a whole: give a new directory, e.g. --out opcert-report", out)
	}
	fi, err := os.Lstat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return writableParent(out)
	case err != nil:
		return fmt.Errorf("--out %s: %w", out, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("--out %s is a symbolic link; opcert does not replace links: give the directory itself or a new path", out)
	case !fi.IsDir():
		return fmt.Errorf("--out %s is a file, not a report directory; opcert will not replace it: give a new directory", out)
	}
	if ours(out) {
		return writableParent(out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("--out %s holds files opcert did not write (%s); opcert replaces only its own report directories (they hold %s): give a new or empty directory, or move those files away",
			out, entries[0].Name(), marker)
	}
	return writableParent(out)
}

// within tells whether dir is base or below it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, dir)
	return err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))))
}

func ours(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, marker))
	return err == nil && fi.Mode().IsRegular()
}

// writableParent checks that the staging directory can be made beside out:
// the nearest existing ancestor must be a directory opcert may write in.
func writableParent(out string) error {
	for dir := filepath.Dir(filepath.Clean(out)); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if errors.Is(err, fs.ErrNotExist) && dir != filepath.Dir(dir) {
			continue
		}
		if err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("--out %s: %s is not a directory", out, dir)
		}
		if unix.Access(dir, unix.W_OK|unix.X_OK) != nil {
			return fmt.Errorf("--out %s: cannot write in %s: give a directory you can write to", out, dir)
		}
		return nil
	}
}

// stagingDir makes a directory beside out, marked as opcert's; the run
// writes there and replaceDir swaps it in. Staging directories left by an
// opcert that was killed outright are removed first.
func stagingDir(out string) (string, error) {
	parent, base := filepath.Split(filepath.Clean(out))
	if parent == "" {
		parent = "."
	}
	sweepStaging(parent, base)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", envError{fmt.Errorf("report directory %s: %w", out, err)}
	}
	dir, err := os.MkdirTemp(parent, "."+base+stagingTag+strconv.Itoa(os.Getpid())+"-")
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, marker), []byte(markerText), 0o644)
	}
	if err != nil {
		return "", envError{fmt.Errorf("report directory %s: %w", out, err)}
	}
	return dir, nil
}

// sweepStaging removes marked staging directories of out whose opcert is gone.
func sweepStaging(parent, base string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "."+base+stagingTag+"*"))
	for _, dir := range dirs {
		rest := strings.TrimPrefix(filepath.Base(dir), "."+base+stagingTag)
		pid, _, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(pid)
		if !ok || err != nil || !ours(dir) || alive(n) {
			continue
		}
		_ = os.RemoveAll(dir)
	}
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// replaceDir swaps staging in for out, checking again that out is still
// replaceable: the old report is moved aside, the new one renamed into
// place, and only then the old one removed.
func replaceDir(staging, out string) error {
	if err := checkOut(out); err != nil {
		return err
	}
	old := staging + ".old"
	moved := false
	if _, err := os.Lstat(out); err == nil {
		if err := os.Rename(out, old); err != nil {
			return envError{fmt.Errorf("replacing %s: %w", out, err)}
		}
		moved = true
	}
	if err := os.Rename(staging, out); err != nil {
		if moved {
			_ = os.Rename(old, out)
		}
		return envError{fmt.Errorf("replacing %s: %w", out, err)}
	}
	if moved {
		_ = os.RemoveAll(old)
	}
	return os.Chmod(out, 0o755)
}

func writeTimeline(path string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
