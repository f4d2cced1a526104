package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/shard"
)

type mergeOptions struct {
	out          string
	reproducible bool
}

// mergers make each command's report from its shards.
var mergers = map[string]func(set *shard.Set, o *mergeOptions, stdout io.Writer, staging string) error{
	toolRun:      mergeRun,
	toolSelftest: mergeSelftest,
	toolFuzz:     mergeFuzz,
	toolPerturb:  mergePerturb,
}

// The commands that shard, as shard.json names them.
const (
	toolRun      = "opcert run"
	toolSelftest = "opcert selftest"
	toolFuzz     = "opcert fuzz"
	toolPerturb  = "opcert perturb"
)

func newMerge() *cobra.Command {
	o := mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge DIR...",
		Short: "Make one report of the report directories of a command's shards",
		Long: `Make one report of the report directories of a command's shards.

Each DIR is the --out of one shard of 'opcert run', 'selftest', 'fuzz' or
'perturb' played with --shard INDEX/COUNT (on CI machines of a matrix, in
the pods of an Indexed Job): its shard.json says which command, which
opcert, which work (the plan's fingerprint: scenarios, subjects, draws,
settings) and which part of it. The merge lays the shards' runs out in the
order one unsharded command plays them and writes that command's report
to --out, as the command would have (report.json, junit.xml, report.md,
report.html and timelines/; selftest.json and selftest.md for the
self-test; the failures' scenario files of fuzz and perturb), and judges
it: a self-test is judged only once merged.

Shards of different commands, opcert versions, plans or counts are
refused, and so is a shard given twice. A shard not given is reported
MISSING in every format and makes the merge INCOMPLETE: never a pass. With
--reproducible the wall-clock fields are left out, and the merged report
of any number of shards is the same bytes as the unsharded command's with
--reproducible.

Exit codes: 0 the merged command passed, 1 a rule, mutant or point
failed, 2 the input's fault (not shards, shards of different work,
--out; nothing written), 3 the environment's fault: shards missing
(INCOMPLETE) or a shard's API server stopped a run, 4 a run was NOT
JUDGED.`,
		Example: `  opcert merge shard-1 shard-2 shard-3 shard-4 --out opcert-selftest
  opcert merge results/shard-* --out opcert-report --reproducible`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error { return o.run(cmd, dirs) },
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "opcert-merged", "report directory of the merged report (replaced when it is written)")
	f.BoolVar(&o.reproducible, "reproducible", false, "leave wall-clock fields (start time, durations, API server start-up, binaries' path) out of the merged report: the same bytes as the unsharded command's with --reproducible")
	return cmd
}

func (o *mergeOptions) run(cmd *cobra.Command, dirs []string) error {
	if err := checkOut(o.out, dirs...); err != nil {
		return err
	}
	var ms []shard.Manifest
	for _, d := range dirs {
		m, err := shard.Read(d)
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	set, err := shard.Gather(ms, dirs)
	if err != nil {
		return err
	}
	merge, ok := mergers[ms[0].Tool]
	if !ok {
		return fmt.Errorf("%s: shards of %q, which this opcert does not merge", dirs[0], ms[0].Tool)
	}
	if miss := set.Missing(); len(miss) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "opcert: shards %v were not given: the merged report will be INCOMPLETE\n", miss)
	}
	staging, err := stagingDir(o.out)
	if err != nil {
		return err
	}
	defer os.RemoveAll(staging)
	return merge(set, o, cmd.OutOrStdout(), staging)
}

// firstPresent is the index in set.Shards of the first shard given.
func firstPresent(set *shard.Set) int {
	return slices.IndexFunc(set.Shards, func(m *shard.Manifest) bool { return m != nil })
}

// span is the wall-clock extent of shards played side by side: from the
// first start to the last end, and the longest API server start-up.
type span struct {
	first, last time.Time
	startup     time.Duration
}

func (s *span) add(start time.Time, wall, startup time.Duration) {
	if s.first.IsZero() || start.Before(s.first) {
		s.first = start
	}
	if end := start.Add(wall); end.After(s.last) {
		s.last = end
	}
	s.startup = max(s.startup, startup)
}

func (s span) wall() time.Duration { return s.last.Sub(s.first) }

// copyShardFiles copies into staging what the shards wrote beside their
// reports (timelines, process logs, scenario files), but for the files
// the merge writes itself (own) and those keep says no to; a file two
// shards both wrote must be the same bytes.
func copyShardFiles(set *shard.Set, staging string, own []string, keep func(shard *shard.Manifest, rel string) bool) error {
	for _, m := range set.Present() {
		dir := set.Dirs[m.Shard.Index-1]
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			name := filepath.ToSlash(rel)
			if !d.Type().IsRegular() || name == marker || name == shard.File || slices.Contains(own, name) || (keep != nil && !keep(m, name)) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			dst := filepath.Join(staging, rel)
			if prev, err := os.ReadFile(dst); err == nil {
				if !bytes.Equal(prev, data) {
					return fmt.Errorf("%s: another shard wrote a different %s", dir, name)
				}
				return nil
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return err
			}
			return os.WriteFile(dst, data, 0o644)
		})
		if err != nil {
			return envError{err}
		}
	}
	return nil
}
