package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A failure that needs two of twenty steps, the second at 5m or later, and
// 10m after it: shrinking keeps exactly those two, moves the second to 5m
// and cuts the run to about 15m.
func TestShrink(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: big\nmechanism: demo\nduration: 2h\nnodes: [a, b]\nsteps:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "  - at: %dm\n", 3*i+1)
		switch i {
		case 4:
			b.WriteString("    set: {node: a, value: 7}\n")
		case 13:
			b.WriteString("    poke: b\n")
		default:
			b.WriteString("    poke: a\n")
		}
	}
	s, err := Parse("big.yaml", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	fails := func(c *Scenario) (bool, error) {
		var set, poke time.Duration = -1, -1
		for _, st := range c.Steps {
			if st.Action == "set" && st.Arg.(*demoSet).Value == 7 {
				set = st.Time
			}
			if st.Action == "poke" && st.Arg == "b" && set >= 0 && st.Time >= 5*time.Minute {
				poke = st.Time
			}
		}
		return poke >= 0 && c.Duration.Duration >= poke+10*time.Minute, nil
	}
	if ok, _ := fails(s); !ok {
		t.Fatal("the starting scenario does not fail")
	}
	sh := &Shrinking{Fails: fails, Budget: 500}
	min, data, err := sh.Shrink(s, "min.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(min.Steps) != 2 || min.Steps[0].Time != 0 || min.Steps[1].Time != 5*time.Minute {
		t.Errorf("shrunk to\n%s", data)
	}
	if d := min.Duration.Duration; d < 15*time.Minute || d > 16*time.Minute {
		t.Errorf("duration %s, want about 15m", d)
	}
	if min.Source != "min.yaml" || sh.Runs == 0 || sh.Runs > 100 {
		t.Errorf("source %q, %d runs", min.Source, sh.Runs)
	}
	back, err := Parse("min.yaml", data)
	if err != nil || len(back.Steps) != 2 {
		t.Errorf("the file does not replay the shrunk scenario: %v\n%s", err, data)
	}

	// A budget of 3 runs stops early, with the best found so far.
	sh = &Shrinking{Fails: fails, Budget: 3}
	if _, _, err := sh.Shrink(s, "min.yaml"); err != nil || sh.Runs != 3 {
		t.Errorf("budget 3: %d runs, %v", sh.Runs, err)
	}
}

func TestDrawnUnknown(t *testing.T) {
	if _, _, err := Drawn("demo", 1, time.Hour); err == nil || !strings.Contains(err.Error(), "cannot draw") {
		t.Errorf("Drawn(demo) = %v, want an error: demo has no Draw", err)
	}
}
