package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/opcert/opcert/reports"
	"github.com/opcert/opcert/scenarios"
	"github.com/opcert/opcert/shard"
)

// shardFlag is --shard, which run, selftest, fuzz and perturb take: the
// part of the work this opcert plays (docs/guides/sharding.md).
type shardFlag struct {
	value string
}

func (s *shardFlag) add(f *pflag.FlagSet) {
	f.StringVar(&s.value, "shard", "", "play only shard INDEX/COUNT of the work (1/4 to 4/4), balanced by estimated cost, and write shard.json beside the report for 'opcert merge'; "+
		"without it, "+shard.EnvShard+"=INDEX/COUNT, or an Indexed Job's "+shard.EnvJobIndex+" (from 0) with "+shard.EnvShardCount+"=COUNT")
}

// spec is the shard given by the flag, else by the environment; the zero
// Spec for the whole work.
func (s *shardFlag) spec() (shard.Spec, error) {
	if s.value != "" {
		spec, err := shard.Parse(s.value)
		if err != nil {
			return shard.Spec{}, fmt.Errorf("--shard %w", err)
		}
		return spec, nil
	}
	return shard.FromEnv(os.Getenv)
}

// notPlan are the flags a command's results do not depend on: where its
// report goes, how it is split, how it reaches its API server.
var notPlan = []string{"out", "shard", "api-port", "reproducible", "kubeconfig-out"}

// sharding is a command's work split into units, and this opcert's part
// of it: every unit when not sharded.
type sharding struct {
	spec  shard.Spec
	tool  string
	plan  string
	units []shard.Unit
	mine  []int
	plays map[int]bool
}

// newSharding splits units for spec. The plan's fingerprint holds the
// command's flags that change results, as given (the defaults are the
// version's, which shards must share anyway).
func newSharding(cmd *cobra.Command, spec shard.Spec, tool string, units []shard.Unit) *sharding {
	s := &sharding{spec: spec, tool: tool, plan: shard.Plan(tool, givenFlags(cmd.Flags(), notPlan), units), units: units, mine: spec.Mine(units), plays: map[int]bool{}}
	for _, i := range s.mine {
		s.plays[i] = true
	}
	return s
}

// says tells on w which part of the work this opcert plays, when sharded.
func (s *sharding) says(w io.Writer) {
	if !s.spec.On() {
		return
	}
	fmt.Fprintf(w, "opcert: shard %s: %d of %d units (estimated cost %d of %d)\n",
		s.spec, len(s.mine), len(s.units), shard.Cost(s.units, s.mine), shard.Cost(s.units, shard.Spec{}.Mine(s.units)))
}

// write writes dir's shard.json when sharded: done of its units were
// played to the end, and payload is the command's record of them.
func (s *sharding) write(dir string, started time.Time, wall time.Duration, done int, payload any) error {
	if !s.spec.On() {
		return nil
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	return shard.Write(dir, shard.Manifest{Tool: s.tool, Version: thisVersion().String(),
		Plan: s.plan, Shard: s.spec, Total: len(s.units), Units: s.mine, Done: done,
		Cost: shard.Cost(s.units, s.mine), StartedAt: started.UTC(), Wall: wall, Payload: data})
}

// keep are the items of this opcert's units, in order: items are the
// work's, one per unit.
func keep[T any](s *sharding, items []T) []T {
	out := make([]T, 0, len(s.mine))
	for _, i := range s.mine {
		out = append(out, items[i])
	}
	return out
}

// runUnits are a run's plans, each costing its estimated wall time in
// milliseconds (virtual runs by their API calls, real-time ones by their
// scaled duration), keyed by scenario, its content and its cast.
func runUnits(plans []plan, scale float64) []shard.Unit {
	out := make([]shard.Unit, len(plans))
	for i, p := range plans {
		out[i] = shard.Unit{Key: scenarioKey(p.sc) + " " + reports.SubjectList(p.cast.Names()), Cost: p.wall(scale).Milliseconds()}
	}
	return out
}

// scenarioKey names a scenario and its content: two files of one name
// and different steps are different work.
func scenarioKey(sc *scenarios.Scenario) string {
	data, err := scenarios.Encode(sc)
	if err != nil { // a scenario that loaded encodes; its name alone then
		return sc.Name
	}
	sum := sha256.Sum256(data)
	return sc.Name + "@" + hex.EncodeToString(sum[:8])
}
