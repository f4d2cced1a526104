package rules

import (
	"testing"
	"time"
)

// A write stamped before the recording began is cited "-354ms", never
// "+-354ms" (issue 20 §7, as opcert analyze printed it).
func TestOffsetBeforeTheStart(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o := newJudging(Config{}, start, true)
	for d, want := range map[time.Duration]string{-354 * time.Millisecond: "-354ms", 0: "+0s", 10 * time.Minute: "+10m0s"} {
		if got := o.off(start.Add(d)); got != want {
			t.Errorf("off(%s) = %q, want %q", d, got, want)
		}
	}
}
