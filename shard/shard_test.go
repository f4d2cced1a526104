package shard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"1/1", Spec{1, 1}, ""},
		{"2/4", Spec{2, 4}, ""},
		{" 4/4 ", Spec{4, 4}, ""},
		{"0/4", Spec{}, "INDEX counts from 1"},
		{"5/4", Spec{}, "INDEX counts from 1"},
		{"1/0", Spec{}, "COUNT must be"},
		{"1/10001", Spec{}, "COUNT must be"},
		{"1", Spec{}, "not INDEX/COUNT"},
		{"a/b", Spec{}, "not INDEX/COUNT"},
		{"", Spec{}, "not INDEX/COUNT"},
		{"1/2/3", Spec{}, "not INDEX/COUNT"},
	} {
		got, err := Parse(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want Spec
		err  string
	}{
		{nil, Spec{}, ""},
		{map[string]string{EnvShard: "3/4"}, Spec{3, 4}, ""},
		{map[string]string{EnvShard: "3/4", EnvJobIndex: "0", EnvShardCount: "2"}, Spec{3, 4}, ""}, // OPCERT_SHARD first
		{map[string]string{EnvJobIndex: "0", EnvShardCount: "2"}, Spec{1, 2}, ""},
		{map[string]string{EnvJobIndex: "1", EnvShardCount: "2"}, Spec{2, 2}, ""},
		{map[string]string{EnvJobIndex: "2", EnvShardCount: "2"}, Spec{}, "INDEX counts from 1"},
		{map[string]string{EnvJobIndex: "-1", EnvShardCount: "2"}, Spec{}, "counted from 0"},
		{map[string]string{EnvJobIndex: "1"}, Spec{}, "OPCERT_SHARD_COUNT is not"},
		{map[string]string{EnvShardCount: "2"}, Spec{}, "JOB_COMPLETION_INDEX is not"},
		{map[string]string{EnvShard: "x"}, Spec{}, "OPCERT_SHARD="},
	} {
		got, err := FromEnv(func(k string) string { return tc.env[k] })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: %v, %v; want an error saying %q", tc.env, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v: %v, %v; want %v", tc.env, got, err, tc.want)
		}
	}
}

func units(costs ...int64) []Unit {
	out := make([]Unit, len(costs))
	for i, c := range costs {
		out[i] = Unit{Key: string(rune('a' + i)), Cost: c}
	}
	return out
}

func TestAssignBalancesCost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		costs []int64
		count int
		want  []int
	}{
		// Counting units would give shard 1 the costly one and two more.
		{"one costly unit alone", []int64{90, 10, 10, 10, 10, 10, 10}, 2, []int{1, 2, 2, 2, 2, 2, 2}},
		{"equal costs go round in order", []int64{5, 5, 5, 5}, 2, []int{1, 2, 1, 2}},
		{"no estimate counts as 1", []int64{0, 0, 0}, 3, []int{1, 2, 3}},
		{"more shards than units", []int64{3, 2}, 4, []int{1, 2}},
		{"longest first", []int64{2, 7, 5, 4, 3}, 2, []int{2, 1, 2, 2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Assign(units(tc.costs...), tc.count)
			if !slices.Equal(got, tc.want) {
				t.Errorf("Assign(%v, %d) = %v, want %v", tc.costs, tc.count, got, tc.want)
			}
		})
	}
}

// Every unit is in exactly one shard, in order, and no shard carries
// more than the average plus the costliest unit (longest processing time
// first never does).
func TestMineCoversTheWorkOnce(t *testing.T) {
	costs := []int64{}
	for i := range 97 {
		costs = append(costs, int64((i*7919)%113+1))
	}
	us := units(costs...)
	for _, n := range []int{1, 2, 3, 4, 7, 16} {
		seen := make([]int, len(us))
		var total, most, costliest int64
		for _, c := range costs {
			total += c
			costliest = max(costliest, c)
		}
		for i := 1; i <= n; i++ {
			mine := Spec{i, n}.Mine(us)
			if !slices.IsSorted(mine) {
				t.Errorf("%d/%d: units %v not in order", i, n, mine)
			}
			for _, u := range mine {
				seen[u]++
			}
			most = max(most, Cost(us, mine))
		}
		for u, k := range seen {
			if k != 1 {
				t.Errorf("/%d: unit %d in %d shards", n, u, k)
			}
		}
		if most > total/int64(n)+costliest {
			t.Errorf("/%d: a shard costs %d, over the average %d plus the costliest unit %d", n, most, total/int64(n), costliest)
		}
	}
	if got := (Spec{}).Mine(us); len(got) != len(us) {
		t.Errorf("the whole work is %d units, want %d", len(got), len(us))
	}
}

func TestPlan(t *testing.T) {
	base := Plan("opcert run", []string{"--strict=true"}, units(1, 2))
	for name, other := range map[string]string{
		"tool":     Plan("opcert selftest", []string{"--strict=true"}, units(1, 2)),
		"settings": Plan("opcert run", nil, units(1, 2)),
		"units":    Plan("opcert run", []string{"--strict=true"}, units(1, 2, 3)),
		// A key that runs into the next must not read as the same plan.
		"boundaries": Plan("opcert run", []string{"--strict=true", "a"}, []Unit{{Key: "b"}}),
	} {
		if other == base {
			t.Errorf("a different %s gives the same plan %s", name, base)
		}
	}
	if again := Plan("opcert run", []string{"--strict=true"}, units(7, 9)); again != base {
		t.Errorf("costs changed the plan: %s, %s", base, again)
	}
}

func manifest(tool string, index, count int, units ...int) Manifest {
	return Manifest{Tool: tool, Version: "v1", Plan: "p", Shard: Spec{index, count}, Total: 4, Units: units, Done: len(units)}
}

func TestGather(t *testing.T) {
	set, err := Gather([]Manifest{manifest("opcert run", 2, 3, 1), manifest("opcert run", 1, 3, 0, 2)}, []string{"b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if set.Dirs[0] != "a" || set.Dirs[1] != "b" || set.Shards[2] != nil {
		t.Errorf("laid out %v", set.Dirs)
	}
	if miss := set.Missing(); !slices.Equal(miss, []string{"3/3"}) {
		t.Errorf("missing %v, want 3/3", miss)
	}
	if got := set.Describe(); got != "2 of 3 shards (missing 3/3)" {
		t.Errorf("Describe() = %q", got)
	}
	for name, tc := range map[string]struct {
		other Manifest
		err   string
	}{
		"command": {manifest("opcert selftest", 2, 3, 1), "different commands"},
		"version": {func() Manifest { m := manifest("opcert run", 2, 3, 1); m.Version = "v2"; return m }(), "different opcert versions"},
		"count":   {manifest("opcert run", 2, 4, 1), "different splits"},
		"plan":    {func() Manifest { m := manifest("opcert run", 2, 3, 1); m.Plan = "q"; return m }(), "different plans"},
		"twice":   {manifest("opcert run", 1, 3, 0, 2), "both shard 1/3"},
	} {
		if _, err := Gather([]Manifest{manifest("opcert run", 1, 3, 0, 2), tc.other}, []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want an error saying %q", name, err, tc.err)
		}
	}
}

func TestReadChecksTheManifest(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not the report directory of a shard") {
		t.Errorf("a directory without %s: %v", File, err)
	}
	good := manifest("opcert run", 1, 2, 0, 3)
	if err := Write(dir, good); err != nil {
		t.Fatal(err)
	}
	if m, err := Read(dir); err != nil || !slices.Equal(m.Units, good.Units) {
		t.Errorf("Read = %+v, %v", m, err)
	}
	for name, body := range map[string]string{
		"not JSON":        `{`,
		"no shard":        `{"shard":{"index":0,"count":0},"total":1}`,
		"index over":      `{"shard":{"index":3,"count":2},"total":1}`,
		"units unordered": `{"shard":{"index":1,"count":2},"total":4,"units":[2,1],"done":2}`,
		"unit outside":    `{"shard":{"index":1,"count":2},"total":4,"units":[4],"done":1}`,
		"done over":       `{"shard":{"index":1,"count":2},"total":4,"units":[1],"done":2}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, File), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"1/4", "4/4", "0/1", "1/0", "x", "2/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			return
		}
		if spec.Index < 1 || spec.Index > spec.Count || spec.Count > MaxCount {
			t.Fatalf("Parse(%q) = %v", s, spec)
		}
		if again, err := Parse(spec.String()); err != nil || again != spec {
			t.Fatalf("Parse(%q) = %v; its String %q reads %v, %v", s, spec, spec.String(), again, err)
		}
	})
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"tool":"opcert run","shard":{"index":1,"count":2},"total":3,"units":[0,2],"done":1}`))
	f.Add([]byte(`{"shard":{"index":2,"count":2},"total":1,"units":[],"done":0,"payload":{"x":1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, File), data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Read(dir)
		if err != nil {
			return
		}
		if m.Done > len(m.Units) || !m.Shard.On() {
			t.Fatalf("read %+v", m)
		}
		for _, u := range m.Units {
			if u < 0 || u >= m.Total {
				t.Fatalf("unit %d outside a work of %d", u, m.Total)
			}
		}
	})
}
