package reports

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Scenarios a command left out before anything started are said in every
// report, never counted as passed: the summary groups them by reason, the
// Markdown lists each, JUnit skips each, the HTML page says them in its
// summary, report.json keeps each.
func TestSkippedScenariosAreSaidEverywhere(t *testing.T) {
	why := "mechanism olm cannot scale its times, so --time-scale 0.01 cannot play it"
	r := &Report{Tool: "opcert", Runs: []Run{{Scenario: "stale-hang", Cases: []Case{{Rule: "STALE-001", Status: Pass}}}}, Skipped: []Skipped{
		{Scenario: "olm-a", Mechanism: "olm", Why: why}, {Scenario: "olm-b", Mechanism: "olm", Why: why},
		{Scenario: "olm-c", Mechanism: "olm", Why: why}, {Scenario: "olm-d", Mechanism: "olm", Why: why},
		{Scenario: "stale-api-errors", Mechanism: "stale", Why: "its apiErrors steps are injected in virtual time only"},
	}}
	var sum bytes.Buffer
	WriteSummary(&sum, r)
	for _, want := range []string{
		"SKIPPED 4 scenarios of olm (olm-a, olm-b, olm-c and 1 more): " + why + "\n",
		"SKIPPED scenario stale-api-errors (stale): its apiErrors steps are injected in virtual time only\n",
		"PASS: 1 runs (0 could not complete), 1 of 1 rules judged: 1 passed, 0 warned, 0 failed, 0 skipped in 0s; 5 scenarios not played (SKIPPED above)\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Not played") || !strings.Contains(md.String(), "| olm-d | olm | "+why+" |") {
		t.Errorf("Markdown lacks the scenarios not played:\n%s", md.String())
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(junit.String(), "<skipped message="); got != 5 || !strings.Contains(junit.String(), `<testsuites name="opcert" tests="6" failures="0" errors="0" skipped="5"`) {
		t.Errorf("JUnit: %d skipped cases, want 5:\n%s", got, junit.String())
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "<dt>Not played</dt><dd>4 scenarios of olm (olm-a, olm-b, olm-c and 1 more): "+why) {
		t.Errorf("HTML lacks the scenarios not played")
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil || len(back.Skipped) != 5 || back.Skipped[4] != r.Skipped[4] {
		t.Errorf("report.json keeps %+v, want %+v (%v)", back.Skipped, r.Skipped, err)
	}
}
