package certify

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/opcert/opcert/reports"
)

// Test certifies in a Go test: a subtest per scenario, and in it one per
// rule (`go test -run 'TestX/stale-hang/STALE-007'`). A failed rule fails
// its subtest with the rule's message and evidence; a rule with nothing to
// judge is skipped, saying why. Options.Out, if set, gets the report when
// the test ends.
func Test(t *testing.T, opts Options) {
	t.Helper()
	p, err := newPlan(opts)
	if err != nil {
		t.Fatal(err)
	}
	a, err := connect(t.Context(), p.opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	rep := &reports.Report{Tool: "opcert certify", Environment: a.env}
	if p.opts.Out != "" {
		t.Cleanup(func() {
			if err := reports.WriteAll(p.opts.Out, rep); err != nil {
				t.Error(err)
			}
		})
	}
	for _, sc := range p.scs {
		t.Run(sc.Name, func(t *testing.T) {
			run, _ := p.play(t.Context(), a, sc)
			rep.Runs = append(rep.Runs, run)
			if s := skippedSteps(run); s != "" {
				t.Logf("steps that did not apply to %s:\n%s", p.opts.Name, s)
			}
			for _, id := range p.ids() {
				t.Run(id, func(t *testing.T) {
					switch o := outcomeOf(run, id); o.status {
					case reports.Fail:
						t.Error(o.text)
					case reports.Skip:
						t.Skip(o.text)
					default:
						t.Log(o.text)
					}
				})
			}
		})
	}
}

// Main is a test package's TestMain: it starts opcert's API server into
// *server, one for every test of the package (give Options.Config its
// Config), runs the tests and stops it. With -short it starts none, for
// the tests that skip what needs it. A server that cannot start ends the
// tests, exit 2, saying why.
func Main(m *testing.M, server **Server) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
	s, err := StartServer(context.Background(), os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	*server = s
	code := m.Run()
	_ = s.Stop()
	os.Exit(code)
}
