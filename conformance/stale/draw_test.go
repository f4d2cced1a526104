package stale

import (
	"bytes"
	"testing"
	"time"

	"github.com/opcert/opcert/scenarios"
)

// Drawn scenarios are valid, replay from their files, depend on the seed
// alone, and use every action.
func TestDraw(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range []time.Duration{time.Second, time.Hour, 24 * time.Hour} {
		for seed := range uint64(300) {
			s, data, err := scenarios.Drawn("stale", seed, d)
			if err != nil {
				t.Fatalf("seed %d, %s: %v", seed, d, err)
			}
			if diff, err := scenarios.RoundTrip(s); err != nil || diff != "" {
				t.Fatalf("seed %d, %s: %v %s", seed, d, err, diff)
			}
			_, again, _ := scenarios.Drawn("stale", seed, d)
			if !bytes.Equal(data, again) {
				t.Fatalf("seed %d drew two scenarios", seed)
			}
			if len(s.Steps) > 2*maxDrawnFaults+4 {
				t.Errorf("seed %d, %s: %d steps", seed, d, len(s.Steps))
			}
			for _, st := range s.Steps {
				seen[st.Action] = true
			}
		}
	}
	for _, a := range []string{actKill, actRestart, actHang, actReconnect, actSet, actSlow, actKillDetector, actRestartDetector} {
		if !seen[a] {
			t.Errorf("no drawn scenario uses %s", a)
		}
	}
	a, _, _ := scenarios.Drawn("stale", 1, time.Hour)
	b, _, _ := scenarios.Drawn("stale", 2, time.Hour)
	if diff, _ := scenarios.RoundTrip(a); diff != "" || a.Name == b.Name {
		t.Errorf("seeds 1 and 2 drew the same scenario")
	}
}
