package main

import (
	"path/filepath"
	"testing"
)

// FuzzReportRunOf holds analyze's reading of the report.json beside a
// timeline to this whatever the file holds: no panic, and a run found is
// the one whose timeline the file is. (go test -fuzz FuzzReportRunOf
// ./cmd/opcert/)
func FuzzReportRunOf(f *testing.F) {
	f.Add([]byte(`{"runs":[{"timeline":"timelines/01-a.jsonl","reachedNanos":5,"mechanism":"stale"}]}`), "01-a.jsonl")
	f.Add([]byte(`{"runs":[{"timeline":"timelines/../timelines/01-a.jsonl"},{"timeline":7}]}`), "01-a.jsonl")
	f.Add([]byte(`{"runs":null}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		file := filepath.Join("report", "timelines", name)
		r, ok := reportRunOf(data, file)
		if ok && filepath.Clean(r.Timeline) != filepath.Join("timelines", filepath.Base(file)) {
			t.Fatalf("found run %+v for %s", r, file)
		}
	})
}
