package lint

import (
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/opcert/opcert/payload"
)

// manyComponents is a payload of n components, each a Deployment and, in
// a later file, the ClusterOperator it reports.
func manyComponents(n int) fstest.MapFS {
	files := fstest.MapFS{}
	for i := range n {
		files[fmt.Sprintf("0000_50_c%d_01_deployment.yaml", i)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: op%d\n  namespace: ns\n", i)}
		files[fmt.Sprintf("0000_50_c%d_02_clusteroperator.yaml", i)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			"apiVersion: config.openshift.io/v1\nkind: ClusterOperator\nmetadata:\n  name: op%d\nstatus:\n  versions:\n  - name: operator\n    version: 0.0.1-snapshot\n", i)}
	}
	return files
}

// Linting takes time linear in the payload: 5,000 components (10,000
// files) took about 20 s when every ClusterOperator scanned every
// manifest for its operator, 0.3 s since (BenchmarkLint: about 60 µs a
// component at 1,000 as at 16,000). The bound is loose for slow machines.
func TestLintIsLinear(t *testing.T) {
	p, err := payload.ReadFS(t.Context(), manyComponents(5000))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if fs := Lint(p); len(fs) != 0 {
		t.Fatalf("findings %v", fs[0])
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("linting 5,000 components took %s", d.Round(time.Millisecond))
	}
}

// BenchmarkLint: the time per component does not grow with the payload.
func BenchmarkLint(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		b.Run(fmt.Sprintf("components=%d", n), func(b *testing.B) {
			p, err := payload.ReadFS(b.Context(), manyComponents(n))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				Lint(p)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/component")
		})
	}
}
