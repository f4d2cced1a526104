package olm

import (
	"fmt"
	"testing"

	"github.com/opcert/opcert/probe"
)

// BenchmarkStatus is one reconcile's status of the lead's benchmark world:
// 10,000 CRs in 50 namespaces, one in ten blocking, with nothing changed
// since the last write (the common case: one CR changed, the rest as
// they were).
func BenchmarkStatus(b *testing.B) {
	blocking := Judge(resource("!Migrating", "BadConnectivity"), seedCR, ReadingHolds, "")
	var entries []Entry
	for i := range 10000 {
		e := Entry{Kind: "foos", Namespace: fmt.Sprintf("ns-%02d", i%50), Name: fmt.Sprintf("foo-%04d", i)}
		if i%10 == 0 {
			e.Verdict = blocking
		}
		entries = append(entries, e)
	}
	prev, _ := Status(entries, nil, probe.Status{}, 1, at(0), "")
	b.ResetTimer()
	for b.Loop() {
		if _, changed := Status(entries, nil, prev, 1, at(0), ""); changed {
			b.Fatal("changed")
		}
	}
}
