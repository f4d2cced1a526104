package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// stagingDir makes an empty directory beside out; the run writes there and
// replaceDir swaps it in, so a failed run never leaves a half-written report.
func stagingDir(out string) (string, error) {
	parent := filepath.Dir(filepath.Clean(out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("report directory %s: %w", out, err)
	}
	dir, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return "", fmt.Errorf("report directory %s: %w", out, err)
	}
	return dir, nil
}

func replaceDir(staging, out string) error {
	if err := os.RemoveAll(out); err != nil {
		return fmt.Errorf("replacing %s: %w", out, err)
	}
	if err := os.Rename(staging, out); err != nil {
		return fmt.Errorf("replacing %s: %w", out, err)
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
