// Package shard splits a command's work into shards that machines play
// apart, and describes each shard's part so that the pieces can be put
// back together (opcert merge).
//
// A command lists its work as units (a run: one scenario with one cast; a
// fuzz campaign: one draw), each with a key that says what it plays and an
// estimated cost. Assign gives every unit to one of COUNT shards, the
// costliest first to the shard with the least so far (longest processing
// time first), so that shards take about the same time rather than the
// same number of units; the assignment is a function of the units alone,
// so every machine that lists the same work computes the same one. A
// shard plays its units in the command's order and keeps their places in
// the whole (Manifest.Units), which is what lets the merge lay the
// shards' results out as one unsharded run would have.
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Spec is one shard of COUNT, Index counted from 1; the zero Spec is the
// whole of the work, unsharded.
type Spec struct {
	// Index is the shard's number, 1 to Count.
	Index int `json:"index"`
	// Count is how many shards the work is split into.
	Count int `json:"count"`
}

// MaxCount bounds COUNT: far more shards than any matrix or Job runs, and
// small enough that a typo (--shard 1/10000000) is caught.
const MaxCount = 10000

// Parse reads INDEX/COUNT, as --shard takes it: 1/4 to 4/4.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return Spec{}, fmt.Errorf("%q is not INDEX/COUNT: give e.g. 1/4 for the first of four shards", s)
	case count < 1 || count > MaxCount:
		return Spec{}, fmt.Errorf("%q: COUNT must be 1 to %d", s, MaxCount)
	case index < 1 || index > count:
		return Spec{}, fmt.Errorf("%q: INDEX counts from 1 to COUNT (%d)", s, count)
	}
	return Spec{Index: index, Count: count}, nil
}

// Environment variables a shard is read from when no flag gives it:
// OPCERT_SHARD as INDEX/COUNT; or, in a Kubernetes Indexed Job, the index
// Kubernetes gives each pod (counted from 0) and the Job's completions,
// which Kubernetes does not pass to the pod, so the Job's template sets it.
const (
	EnvShard      = "OPCERT_SHARD"
	EnvJobIndex   = "JOB_COMPLETION_INDEX"
	EnvShardCount = "OPCERT_SHARD_COUNT"
)

// FromEnv reads the shard from the environment (see EnvShard); the zero
// Spec when none is set.
func FromEnv(getenv func(string) string) (Spec, error) {
	if s := getenv(EnvShard); s != "" {
		spec, err := Parse(s)
		if err != nil {
			return Spec{}, fmt.Errorf("%s=%s", EnvShard, err)
		}
		return spec, nil
	}
	index, count := getenv(EnvJobIndex), getenv(EnvShardCount)
	switch {
	case index == "" && count == "":
		return Spec{}, nil
	case index == "":
		return Spec{}, fmt.Errorf("%s=%s is set but %s is not: the count comes with an Indexed Job's index; outside a Job give --shard INDEX/COUNT", EnvShardCount, count, EnvJobIndex)
	case count == "":
		return Spec{}, fmt.Errorf("%s=%s is set (an Indexed Job's pod) but %s is not: set it to the Job's completions in the pod template, or give --shard INDEX/COUNT", EnvJobIndex, index, EnvShardCount)
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 {
		return Spec{}, fmt.Errorf("%s=%q is not an index counted from 0", EnvJobIndex, index)
	}
	spec, err := Parse(strconv.Itoa(i+1) + "/" + count)
	if err != nil {
		return Spec{}, fmt.Errorf("%s=%s with %s=%s: %w", EnvJobIndex, index, EnvShardCount, count, err)
	}
	return spec, nil
}

// On tells whether s is a shard rather than the whole.
func (s Spec) On() bool { return s.Count > 0 }

// String is s as Parse reads it: INDEX/COUNT.
// String is s as Parse reads it: INDEX/COUNT.
func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Unit is one piece of a command's work: Key says what it plays (the same
// work has the same keys), Cost what it should cost (estimated API calls,
// or milliseconds of real time), in any unit, the same for every unit.
type Unit struct {
	// Key says what the unit plays.
	Key string
	// Cost is what it should cost.
	Cost int64
}

// Assign gives each unit the shard (1 to count) it belongs to: the
// costliest first, each to the shard with the least cost so far, the
// first such shard on a tie; equal costs keep the units' order. A unit of
// no estimated cost counts as 1, so that such units are spread too.
func Assign(units []Unit, count int) []int {
	order := make([]int, len(units))
	for i := range order {
		order[i] = i
	}
	cost := func(i int) int64 { return max(units[i].Cost, 1) }
	slices.SortStableFunc(order, func(a, b int) int {
		switch ca, cb := cost(a), cost(b); {
		case ca > cb:
			return -1
		case ca < cb:
			return 1
		}
		return 0
	})
	load := make([]int64, count)
	out := make([]int, len(units))
	for _, i := range order {
		least := 0
		for s := 1; s < count; s++ {
			if load[s] < load[least] {
				least = s
			}
		}
		load[least] += cost(i)
		out[i] = least + 1
	}
	return out
}

// Mine are the units of s, by their place in units, in order: all of
// them for the zero Spec.
func (s Spec) Mine(units []Unit) []int {
	var out []int
	if !s.On() {
		for i := range units {
			out = append(out, i)
		}
		return out
	}
	for i, sh := range Assign(units, s.Count) {
		if sh == s.Index {
			out = append(out, i)
		}
	}
	return out
}

// Cost is the estimated cost of the units at places mine.
func Cost(units []Unit, mine []int) int64 {
	var c int64
	for _, i := range mine {
		c += max(units[i].Cost, 1)
	}
	return c
}

// Plan is the fingerprint of a command's work: what ran it (tool), the
// settings its results depend on, and its units' keys in order. Shards
// with the same fingerprint split the same work.
func Plan(tool string, settings []string, units []Unit) string {
	h := sha256.New()
	write := func(s string) { fmt.Fprintf(h, "%d:%s\n", len(s), s) }
	write(tool)
	for _, s := range settings {
		write(s)
	}
	write("--")
	for _, u := range units {
		write(u.Key)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
