package staticpodinstaller

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Config is what to install and where.
type Config struct {
	Operand string // kube-apiserver
	// Revision is the revision to install.
	Revision     int
	SourceDir    string // the revision's files: <operand>-pod.yaml, <operand>-startup-monitor-pod.yaml, configmaps/...
	ResourcesDir string // where <operand>-pod-<revision>/ goes
	// ManifestsDir is the kubelet's static pod manifests directory, where the manifests go.
	ManifestsDir string
	// LockFile is the lock the installer holds while it installs, shared with the startup monitor.
	LockFile string
	// Interval is how often the installer looks at a held lock.
	Interval time.Duration
}

// Install installs the revision under the lock: its resource directory,
// then its startup-monitor's manifest, then its operand's.
func Install(ctx context.Context, cfg Config) error {
	if err := lock(ctx, cfg); err != nil {
		return err
	}
	err := install(cfg)
	return errors.Join(err, os.Remove(cfg.LockFile))
}

// lock takes the installer lock, waiting while someone else holds it.
func lock(ctx context.Context, cfg Config) error {
	t := time.NewTicker(cfg.Interval)
	defer t.Stop()
	for {
		f, err := os.OpenFile(cfg.LockFile, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = fmt.Fprintf(f, "installer %d\n", os.Getpid())
			if err = errors.Join(err, f.Close()); err != nil {
				return errors.Join(err, os.Remove(cfg.LockFile))
			}
			return nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the lock %s: %w", cfg.LockFile, ctx.Err())
		case <-t.C:
		}
	}
}

func install(cfg Config) error {
	dir := filepath.Join(cfg.ResourcesDir, fmt.Sprintf("%s-pod-%d", cfg.Operand, cfg.Revision))
	err := filepath.WalkDir(cfg.SourceDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(cfg.SourceDir, p)
		if err != nil {
			return err
		}
		return copyFile(p, filepath.Join(dir, rel))
	})
	if err != nil {
		return fmt.Errorf("copying revision %d's files: %w", cfg.Revision, err)
	}
	monitor := cfg.Operand + "-startup-monitor-pod.yaml"
	if _, err := os.Stat(filepath.Join(dir, monitor)); err == nil {
		if err := copyFile(filepath.Join(dir, monitor), filepath.Join(cfg.ManifestsDir, monitor)); err != nil {
			return err
		}
	}
	operand := cfg.Operand + "-pod.yaml"
	return copyFile(filepath.Join(dir, operand), filepath.Join(cfg.ManifestsDir, operand))
}

// copyFile writes to whole: a dot-named temporary file renamed into place.
func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(to), "."+filepath.Base(to)+".new")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, to)
}
