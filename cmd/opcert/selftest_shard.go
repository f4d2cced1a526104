package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/shard"
)

// selftestUnits are the self-test's runs in the order it plays them (per
// mechanism, per scenario: the reference, the mutants, the faithful
// variants), each costing its scenario's estimated API calls.
func selftestUnits(plans []selftestPlan) []shard.Unit {
	var out []shard.Unit
	for _, p := range plans {
		for _, sc := range p.scs {
			cost := int64((plan{sc: sc, m: p.m}).calls())
			for _, c := range p.casts() {
				name := c.String()
				if c.subject == "" {
					name = p.m.Name() + ".*=reference"
				}
				out = append(out, shard.Unit{Key: sc.Name + " " + name, Cost: cost})
			}
		}
	}
	return out
}

// brief is what the self-test keeps of a run: what buildMatrix reads (its
// verdicts, why it broke or was not judged, a failure's first events) and
// its API calls. A shard's record holds thousands of them.
func brief(run reports.Run) reports.Run {
	out := reports.Run{Scenario: run.Scenario, Error: run.Error, NotJudged: run.NotJudged, Start: run.Start, APICalls: run.APICalls}
	for _, c := range run.Cases {
		c := reports.Case{Rule: c.Rule, Status: c.Status, Message: c.Message, Evidence: c.Evidence}
		if c.Status != reports.Fail {
			c.Evidence = nil
		}
		c.Evidence = c.Evidence[:min(len(c.Evidence), maxFaithfulEvidence)]
		out.Cases = append(out.Cases, c)
	}
	return out
}

// selftestShard is a self-test shard's record (shard.json's payload): the
// report's header, what the matrix is made of, and its runs' verdicts.
type selftestShard struct {
	Report *selftestReport `json:"report"`
	In     matrixIn        `json:"matrix"`
	Runs   []selftestRun   `json:"runs"`
}

// writeShard ends a shard of the self-test: its runs' verdicts to
// shard.json, no judgement (that is the merge's).
func (o *selftestOptions) writeShard(stdout io.Writer, staging string, sh *sharding, rep *selftestReport, in matrixIn, runs []selftestRun) error {
	if err := sh.write(staging, rep.StartedAt, rep.Wall, len(runs), selftestShard{Report: rep, In: in, Runs: runs}); err != nil {
		return envError{err}
	}
	if err := commitReport(staging, o.out, nil); err != nil {
		return err
	}
	calls := 0
	for _, r := range runs {
		calls += r.Run.APICalls
	}
	fmt.Fprintf(stdout, "\nshard %s of the self-test: %d runs, %d API calls in %s; judged once merged: opcert merge DIR... (this shard's is %s)\n",
		sh.spec, len(runs), calls, rep.Wall.Round(time.Millisecond), o.out)
	return nil
}

// mergeSelftest lays the shards' runs out in the self-test's order and
// judges them as one self-test.
func mergeSelftest(set *shard.Set, o *mergeOptions, stdout io.Writer, staging string) error {
	var rep *selftestReport
	var in matrixIn
	runs := make([]*selftestRun, set.Shards[firstPresent(set)].Total)
	ends := span{}
	for _, m := range set.Present() {
		var p selftestShard
		if err := json.Unmarshal(m.Payload, &p); err != nil || p.Report == nil || len(p.Runs) != len(m.Units) {
			return fmt.Errorf("%s: shard %s's record of its runs cannot be read: %v", set.Dirs[m.Shard.Index-1], m.Shard, err)
		}
		if rep == nil {
			rep, in = p.Report, p.In
		}
		for k := range p.Runs {
			runs[m.Units[k]] = &p.Runs[k]
		}
		ends.add(m.StartedAt, m.Wall, p.Report.Environment.Startup)
	}
	rep.StartedAt, rep.Wall, rep.Environment.Startup = ends.first, ends.wall(), ends.startup
	rep.Missing = set.Missing()
	var ordered []selftestRun
	for _, r := range runs {
		if r != nil {
			ordered = append(ordered, *r)
		}
	}
	fmt.Fprintf(stdout, "opcert: merging %s of the self-test\n", set.Describe())
	return finishSelftest(stdout, staging, o.out, o.reproducible, rep, in, ordered)
}
