package scenarios

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func names(n int) []string {
	var ns []string
	for i := 1; i <= n; i++ {
		ns = append(ns, fmt.Sprintf("op-%02d", i))
	}
	return ns
}

func chaos(seed uint64) Chaos {
	return Chaos{Seed: seed, MeanUptime: Duration{8 * time.Hour},
		Downtime: Range{Duration{5 * time.Minute}, Duration{40 * time.Minute}}, Hang: 0.25}
}

func TestPlanIsDeterministic(t *testing.T) {
	a := chaos(42).Plan(names(35), 24*time.Hour)
	if b := chaos(42).Plan(names(35), 24*time.Hour); !reflect.DeepEqual(a, b) {
		t.Error("the same seed gave two plans")
	}
	if len(a) == 0 {
		t.Fatal("no faults in 35 operator-days with 8h mean uptime")
	}
	if c := chaos(43).Plan(names(35), 24*time.Hour); reflect.DeepEqual(a, c) {
		t.Error("seeds 42 and 43 gave the same plan")
	}
}

// An operator's faults depend on its name and the seed, not on who else runs.
func TestPlanStreamsAreIndependent(t *testing.T) {
	var alone []Fault
	for _, f := range chaos(42).Plan(names(35), 24*time.Hour) {
		if f.Process == "op-07" {
			alone = append(alone, f)
		}
	}
	if got := chaos(42).Plan([]string{"op-07"}, 24*time.Hour); !reflect.DeepEqual(got, alone) {
		t.Errorf("op-07 alone = %v, in the fleet = %v", got, alone)
	}
}

func TestPlanShape(t *testing.T) {
	const duration = 30 * 24 * time.Hour
	c := chaos(7)
	c.MeanUptime = Duration{time.Hour}
	plan := c.Plan(names(100), duration)
	last := map[string]Fault{}
	var uptime time.Duration
	hangs := 0
	for i, f := range plan {
		if i > 0 && (f.At < plan[i-1].At || f.At == plan[i-1].At && f.Process < plan[i-1].Process) {
			t.Fatalf("fault %d (%v) is out of order", i, f)
		}
		if f.At >= duration {
			t.Fatalf("fault %v starts after the run", f)
		}
		if down := f.Until - f.At; down < 5*time.Minute || down > 40*time.Minute {
			t.Fatalf("fault %v: downtime %v outside [5m, 40m]", f, down)
		}
		prev, seen := last[f.Process]
		if seen && f.At <= prev.Until {
			t.Fatalf("faults %v and %v overlap", prev, f)
		}
		uptime += f.At - prev.Until // zero Until for the first fault
		last[f.Process] = f
		if f.Hang {
			hangs++
		}
	}
	mean := uptime / time.Duration(len(plan))
	if mean < 57*time.Minute || mean > 63*time.Minute {
		t.Errorf("mean uptime %v over %d faults, want about 1h", mean, len(plan))
	}
	if frac := float64(hangs) / float64(len(plan)); frac < 0.23 || frac > 0.27 {
		t.Errorf("hang fraction %.3f, want about 0.25", frac)
	}
}

// Faults fall on whole seconds, as the API server keeps times.
func TestPlanWholeSeconds(t *testing.T) {
	for _, f := range chaos(7).Plan(names(35), 24*time.Hour) {
		if f.At%time.Second != 0 || f.Until%time.Second != 0 {
			t.Fatalf("fault %+v is not on whole seconds", f)
		}
	}
}
