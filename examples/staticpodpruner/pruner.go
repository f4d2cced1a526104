package staticpodpruner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Config is what to prune.
type Config struct {
	Operand      string // kube-apiserver
	ResourcesDir string // holds <operand>-pod-<N>/ and the link last-known-good
	// Keep is how many of the newest revisions are kept (the last-known-good one always is).
	Keep int
}

// Prune deletes every revision's resource directory but the newest Keep
// and the one last-known-good links to.
func Prune(cfg Config) error {
	entries, err := os.ReadDir(cfg.ResourcesDir)
	if err != nil {
		return err
	}
	var revisions []int
	for _, e := range entries {
		if r := revisionOf(cfg, e.Name()); r > 0 && e.IsDir() {
			revisions = append(revisions, r)
		}
	}
	slices.Sort(revisions)
	slices.Reverse(revisions)
	linked := 0
	if t, err := os.Readlink(filepath.Join(cfg.ResourcesDir, "last-known-good")); err == nil {
		linked = revisionOf(cfg, filepath.Base(t))
	}
	var errs []error
	for i, r := range revisions {
		if i < cfg.Keep || r == linked {
			continue
		}
		errs = append(errs, os.RemoveAll(filepath.Join(cfg.ResourcesDir, dirName(cfg, r))))
	}
	return errors.Join(errs...)
}

func dirName(cfg Config, r int) string { return fmt.Sprintf("%s-pod-%d", cfg.Operand, r) }

// revisionOf is the revision of a resource directory's name, 0 if it is
// none.
func revisionOf(cfg Config, name string) int {
	rest, ok := strings.CutPrefix(name, cfg.Operand+"-pod-")
	if !ok {
		return 0
	}
	r, _ := strconv.Atoi(rest)
	return r
}
