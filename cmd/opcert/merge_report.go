package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/shard"
)

// reportFiles are the files reports.WriteAll writes: a merge writes its
// own.
var reportFiles = []string{"junit.xml", "report.json", "report.md", "report.html"}

// maxShardReport bounds the report.json a merge reads of each shard.
const maxShardReport = 1 << 30

// shardReport is one shard's report.json and its record (shard.json's
// payload, into record when not nil).
type shardReport struct {
	m   *shard.Manifest
	dir string
	rep reports.Report
}

// readShards reads the report of every shard given, and each one's record.
func readShards(set *shard.Set, record func(m *shard.Manifest) any) ([]shardReport, error) {
	var out []shardReport
	for _, m := range set.Present() {
		s := shardReport{m: m, dir: set.Dirs[m.Shard.Index-1]}
		f, err := os.Open(filepath.Join(s.dir, "report.json"))
		if err != nil {
			return nil, fmt.Errorf("shard %s: %w", m.Shard, err)
		}
		err = json.NewDecoder(io.LimitReader(f, maxShardReport)).Decode(&s.rep)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(s.dir, "report.json"), err)
		}
		if record != nil {
			if err := json.Unmarshal(m.Payload, record(m)); err != nil {
				return nil, fmt.Errorf("%s: shard %s's record: %w", filepath.Join(s.dir, shard.File), m.Shard, err)
			}
		}
		if len(s.rep.Runs) < m.Done {
			return nil, fmt.Errorf("%s holds %d runs, and its %s says %d", filepath.Join(s.dir, "report.json"), len(s.rep.Runs), shard.File, m.Done)
		}
		out = append(out, s)
	}
	return out, nil
}

// header is the merged report before its runs: the first shard's
// environment and settings, the shards' wall-clock extent, the shards
// missing.
func header(set *shard.Set, shards []shardReport) *reports.Report {
	first := shards[0].rep
	var ends span
	for _, s := range shards {
		ends.add(s.rep.StartedAt, s.rep.Wall, s.rep.Environment.Startup)
	}
	rep := &reports.Report{Tool: first.Tool, StartedAt: ends.first, Wall: ends.wall(), Environment: first.Environment,
		Skipped: first.Skipped, Judging: first.Judging, Missing: set.Missing()}
	rep.Environment.Startup = ends.startup
	return rep
}

// placed lays the shards' played runs out by their place in the work.
func placed(set *shard.Set, shards []shardReport) []*reports.Run {
	runs := make([]*reports.Run, set.Shards[firstPresent(set)].Total)
	for _, s := range shards {
		for k := range s.m.Done {
			runs[s.m.Units[k]] = &s.rep.Runs[k]
		}
	}
	return runs
}

// mergeRun makes the report of an opcert run of its shards.
func mergeRun(set *shard.Set, o *mergeOptions, stdout io.Writer, staging string) error {
	shards, err := readShards(set, nil)
	if err != nil {
		return err
	}
	rep := header(set, shards)
	for _, r := range placed(set, shards) {
		if r != nil {
			rep.Runs = append(rep.Runs, *r)
		}
	}
	for _, s := range shards {
		// A shard whose API server stopped holds its runs up to that one.
		if left := len(s.m.Units) - s.m.Done; left > 0 {
			rep.Missing = append(rep.Missing, fmt.Sprintf("%s (its last %d runs: its environment stopped it)", s.m.Shard, left))
		}
	}
	if err := copyShardFiles(set, staging, reportFiles, nil); err != nil {
		return err
	}
	if err := writeReport(staging, rep, o.reproducible); err != nil {
		return err
	}
	verdict := exitVerdict(rep)
	if rep.Errored() {
		verdict = envError{fmt.Errorf("the report is ERROR: a shard's environment stopped a run")}
	}
	fmt.Fprintf(stdout, "merged %s\n", set.Describe())
	return finishRun(stdout, staging, o.out, rep, verdict)
}

// writeReport writes rep's files to dir, without its wall-clock fields
// when reproducible (rep itself keeps them, for the terminal summary:
// reports.Report.Normalize).
func writeReport(dir string, rep *reports.Report, reproducible bool) error {
	written := rep
	if reproducible {
		c := *rep
		c.Runs = slices.Clone(rep.Runs)
		c.Normalize()
		written = &c
	}
	if err := reports.WriteAll(dir, written); err != nil {
		return envError{err}
	}
	return nil
}

// mergeFuzz makes the report of a fuzz campaign of its shards: every draw
// up to the first that failed in any shard (each shard stops at its own
// first), and that one's shrinking.
func mergeFuzz(set *shard.Set, o *mergeOptions, stdout io.Writer, staging string) error {
	records := map[*shard.Manifest]*fuzzShard{}
	shards, err := readShards(set, func(m *shard.Manifest) any {
		records[m] = &fuzzShard{}
		return records[m]
	})
	if err != nil {
		return err
	}
	var found *shardReport
	for i, s := range shards {
		if f := records[s.m].Finding; f != nil && (found == nil || f.Index < records[found.m].Finding.Index) {
			found = &shards[i]
		}
	}
	rep := header(set, shards)
	record := *records[shards[0].m]
	record.Finding = nil
	runs := placed(set, shards)
	if found != nil {
		record.Finding = records[found.m].Finding
		runs = runs[:record.Finding.Index+1]
	}
	for _, r := range runs {
		if r != nil {
			rep.Runs = append(rep.Runs, *r)
		}
	}
	var minimal []byte
	if found != nil {
		rep.Runs = append(rep.Runs, found.rep.Runs[found.m.Done]) // the minimal run, after the drawn ones
		if minimal, err = os.ReadFile(filepath.Join(found.dir, record.Finding.Minimal+".yaml")); err != nil {
			return envError{err}
		}
	}
	// Only the finding kept has files besides its report.
	keep := func(m *shard.Manifest, _ string) bool { return found != nil && m == found.m }
	if err := copyShardFiles(set, staging, reportFiles, keep); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %s\n", set.Describe())
	return finishFuzz(stdout, staging, o.out, o.reproducible, rep, record, minimal)
}

// incomplete is the error of a report merged without some shards (exit
// 3), nil for a whole one.
func incomplete(rep *reports.Report) error {
	if len(rep.Missing) == 0 {
		return nil
	}
	return envError{fmt.Errorf("the report is %s: shards %s are missing", reports.Incomplete, strings.Join(rep.Missing, ", "))}
}

// mergePerturb makes the report of an exploration of its shards: each
// scenario and cast's runs in the exploration's order, then the
// findings' minimal runs in that order.
func mergePerturb(set *shard.Set, o *mergeOptions, stdout io.Writer, staging string) error {
	records := map[*shard.Manifest]*perturbRecord{}
	shards, err := readShards(set, func(m *shard.Manifest) any {
		records[m] = &perturbRecord{}
		return records[m]
	})
	if err != nil {
		return err
	}
	type explored struct {
		target perturbTarget
		runs   []reports.Run
	}
	type finding struct {
		index int
		run   reports.Run
	}
	var all []explored
	var findings []finding
	for _, s := range shards {
		// A shard's report holds its targets' runs in order, then its
		// findings' minimal runs in the same order.
		runs := s.rep.Runs
		for _, t := range records[s.m].Targets {
			if t.Runs > len(runs) {
				return fmt.Errorf("%s: its report holds fewer runs than its %s says", s.dir, shard.File)
			}
			all = append(all, explored{t, runs[:t.Runs]})
			runs = runs[t.Runs:]
		}
		for _, t := range records[s.m].Targets {
			for range t.Findings {
				if len(runs) == 0 {
					return fmt.Errorf("%s: its report holds fewer runs than its %s says", s.dir, shard.File)
				}
				findings = append(findings, finding{t.Index, runs[0]})
				runs = runs[1:]
			}
		}
	}
	// Laid out by the targets' places in the exploration.
	slices.SortStableFunc(all, func(a, b explored) int { return a.target.Index - b.target.Index })
	slices.SortStableFunc(findings, func(a, b finding) int { return a.index - b.index })
	rep := header(set, shards)
	var record perturbRecord
	for _, e := range all {
		rep.Runs = append(rep.Runs, e.runs...)
		record.Targets = append(record.Targets, e.target)
	}
	for _, f := range findings {
		rep.Runs = append(rep.Runs, f.run)
	}
	if err := copyShardFiles(set, staging, reportFiles, nil); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %s\n", set.Describe())
	return finishPerturb(stdout, staging, o.out, o.reproducible, rep, record)
}
