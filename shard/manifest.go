package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is the manifest's name in a shard's report directory.
const File = "shard.json"

// Manifest is what a shard says of itself beside its report: which work
// it is a part of and which part, so that opcert merge can refuse pieces
// of different work and name the pieces missing; Payload is the command's
// own record of what its units gave (opaque here).
type Manifest struct {
	// Tool is the command that wrote it ("opcert selftest").
	Tool string `json:"tool"`
	// Version is the opcert that wrote it: shards of two opcerts may
	// judge alike or not, so they are never merged.
	Version string `json:"version"`
	// Plan is the work's fingerprint (Plan).
	Plan string `json:"plan"`
	// Shard is which part of the work this is.
	Shard Spec `json:"shard"`
	// Total is how many units the whole work has.
	Total int `json:"total"`
	// Units are this shard's, by their place in the work, in order.
	Units []int `json:"units"`
	// Done is how many of Units the shard's report holds, in order: all
	// of them, but for a fuzz campaign's shard, which stops at its first
	// failure.
	Done int `json:"done"`
	// Cost is the units' estimated cost, as Assign balanced it.
	Cost int64 `json:"estimatedCost"`
	// StartedAt is when the shard started, by the wall clock.
	StartedAt time.Time `json:"startedAt"`
	// Wall is how long it took, by the wall clock.
	Wall time.Duration `json:"wallNanos"`
	// Payload is the command's own record of what its units gave.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// Write writes m as dir's File.
func Write(dir string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, File), append(data, '\n'), 0o644)
}

// maxManifest bounds what Read reads: a self-test shard's payload holds
// its runs' verdicts, a few megabytes for thousands of runs.
const maxManifest = 1 << 30

// Read reads dir's File.
func Read(dir string) (Manifest, error) {
	f, err := os.Open(filepath.Join(dir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%s holds no %s: it is not the report directory of a shard (opcert run, selftest, fuzz or perturb with --shard)", dir, File)
	}
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(f, maxManifest)).Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("%s: %w", filepath.Join(dir, File), err)
	}
	switch {
	case !m.Shard.On() || m.Shard.Index < 1 || m.Shard.Index > m.Shard.Count:
		return Manifest{}, fmt.Errorf("%s: shard %s is not INDEX/COUNT", filepath.Join(dir, File), m.Shard)
	case m.Done < 0 || m.Done > len(m.Units):
		return Manifest{}, fmt.Errorf("%s: %d units done of %d", filepath.Join(dir, File), m.Done, len(m.Units))
	}
	for k, u := range m.Units {
		if u < 0 || u >= m.Total || (k > 0 && u <= m.Units[k-1]) {
			return Manifest{}, fmt.Errorf("%s: its units are not places in order in a work of %d", filepath.Join(dir, File), m.Total)
		}
	}
	return m, nil
}

// Set is the shards given to a merge, checked to be parts of one work.
type Set struct {
	// Shards holds each shard given by its index (Shards[0] is 1/COUNT),
	// nil where one is missing.
	Shards []*Manifest
	// Dirs are where each of Shards was read from.
	Dirs []string
}

// Gather checks that the manifests (read from dirs) are shards of one
// work by one opcert, each given once, and lays them out by index. A
// shard missing is no error here: Missing names them.
func Gather(ms []Manifest, dirs []string) (*Set, error) {
	if len(ms) == 0 {
		return nil, errors.New("no shard given")
	}
	first := ms[0]
	set := &Set{Shards: make([]*Manifest, first.Shard.Count), Dirs: make([]string, first.Shard.Count)}
	for i := range ms {
		m := &ms[i]
		differs := func(what, a, b string) error {
			return fmt.Errorf("%s and %s are shards of different %s (%s, %s): merge only the shards of one command's run", dirs[0], dirs[i], what, a, b)
		}
		switch {
		case m.Tool != first.Tool:
			return nil, differs("commands", first.Tool, m.Tool)
		case m.Version != first.Version:
			return nil, differs("opcert versions", first.Version, m.Version)
		case m.Shard.Count != first.Shard.Count:
			return nil, differs("splits", first.Shard.String(), m.Shard.String())
		case m.Plan != first.Plan || m.Total != first.Total:
			return nil, differs("plans (scenarios, subjects, draws or settings)", short(first.Plan), short(m.Plan))
		}
		if prev := set.Dirs[m.Shard.Index-1]; prev != "" {
			return nil, fmt.Errorf("%s and %s are both shard %s: give each shard once", prev, dirs[i], m.Shard)
		}
		set.Shards[m.Shard.Index-1], set.Dirs[m.Shard.Index-1] = m, dirs[i]
	}
	return set, nil
}

func short(plan string) string {
	if len(plan) > 19 {
		return plan[:19]
	}
	return plan
}

// Missing are the shards not given, as INDEX/COUNT.
func (s *Set) Missing() []string {
	var out []string
	for i, m := range s.Shards {
		if m == nil {
			out = append(out, Spec{Index: i + 1, Count: len(s.Shards)}.String())
		}
	}
	return out
}

// Present are the shards given, by index.
func (s *Set) Present() []*Manifest {
	return slices.DeleteFunc(slices.Clone(s.Shards), func(m *Manifest) bool { return m == nil })
}

// Describe says what a set of shards is, for a summary line.
func (s *Set) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d shards", len(s.Present()), len(s.Shards))
	if miss := s.Missing(); len(miss) > 0 {
		fmt.Fprintf(&b, " (missing %s)", strings.Join(miss, ", "))
	}
	return b.String()
}
