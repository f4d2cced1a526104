package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// --time-scale is checked when the flag is parsed: NaN (which every range
// check let through, and which failed the reference), Inf, 0 (once read
// as 1), negatives, factors above 1 or below 0.001, and words are the
// input's fault, exit 2, before the API server starts; a factor in range
// is taken.
func TestTimeScaleIsCheckedBeforeAnythingStarts(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report")
	for _, scale := range []string{"NaN", "nan", "Inf", "-Inf", "+Inf", "0", "-0", "-1", "1.5", "1e-9", "0x1p-20", "fast", ""} {
		r := opcert(t, nil, "run", "--scenario", "stale-hang", "--time-scale", scale, "--out", out)
		if r.code != exitUsage || !strings.Contains(r.stderr, `for "--time-scale" flag`) || !strings.Contains(r.stderr, "give a factor from 0.001 to 1") {
			t.Errorf("--time-scale %q: exit %d, want 2 naming the flag and its range:\n%s", scale, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "starting kube-apiserver") {
			t.Errorf("--time-scale %q was refused only after the API server started:\n%s", scale, r.stderr)
		}
	}
	for _, scale := range []string{"1", "0.01", "0.001", "1e-2"} {
		if r := opcert(t, nil, "run", "--scenario", "stale-hang", "--time-scale", scale, "--dry-run", "--out", out); r.code != exitPass {
			t.Errorf("--time-scale %s: exit %d, want it taken:\n%s", scale, r.code, r.stderr)
		}
	}
}
