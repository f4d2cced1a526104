package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every report directory gets report.html beside junit.xml, report.json
// and report.md: a failing run's page leads from the summary's fail count
// to the evidence, a reproducible run's page is the same bytes each time,
// and opcert analyze draws the page of the timeline it judged.
func TestReportHTML(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	dir := t.TempDir()
	var pages []string
	for _, name := range []string{"first", "second"} {
		out := filepath.Join(dir, name)
		r := opcert(t, nil, "run", "--out", out, "--reproducible", "--subject", "operator=slow", "--scenario", "stale-healthy-answer")
		if r.code != 1 {
			t.Fatalf("slow operator: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "report.html") {
			t.Errorf("the summary does not name report.html:\n%s", r.stdout)
		}
		page, err := os.ReadFile(filepath.Join(out, "report.html"))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, string(page))
	}
	if pages[0] != pages[1] {
		t.Error("two reproducible runs wrote two different pages")
	}
	page := pages[0]
	first := regexp.MustCompile(`<a id="fail-count" class="n fail" href="#(ev-1-\d+)">2 failed</a>`).FindStringSubmatch(page)
	if first == nil {
		t.Fatal("the summary's fail count does not lead to a failure")
	}
	for _, want := range []string{
		`<div class="case fail" id="` + first[1] + `">`,
		"STALE-007: a running operator resets a challenged message within the budget (30s)",
		`<div class="tl" id="tl-1"`,
		`<a class="mk m-cite" href="#` + first[1] + `">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}

	analyzed := filepath.Join(dir, "analyzed")
	r := opcert(t, nil, "analyze", "--out", analyzed, filepath.Join(dir, "first", "timelines", "01-stale-healthy-answer.jsonl"))
	if r.code != 1 {
		t.Fatalf("analyze: exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	again, err := os.ReadFile(filepath.Join(analyzed, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(again), `<a class="mk m-cite" href="#ev-1-`) {
		t.Error("the analysis's page does not draw the cited writes on the timeline")
	}
}
