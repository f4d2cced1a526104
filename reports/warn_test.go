package reports

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/opcert/opcert/sim/timeline"
)

// warnedReport has one run with a passing case and a warned one (a
// convention rule's failure in a run that is not strict).
func warnedReport() *Report {
	co := timeline.ObjectRef{Kind: "ClusterOperator", Group: "config.openshift.io", Name: "etcd"}
	return &Report{Tool: "opcert", Runs: []Run{{
		Scenario: "upgrade",
		Subjects: map[string]string{"operator": "lowercase"},
		Virtual:  time.Hour,
		Cases: []Case{
			{Rule: "CO-020", Section: "001 §Conditions", Statement: "conditions are valid", Role: "operator", Status: Pass},
			{Rule: "CO-021", Section: "001 §Conditions", Statement: "every condition message starts with a capital letter",
				Role: "operator", Status: Warn, Message: `ClusterOperator/etcd Available: "all is well" starts with "a"`,
				Evidence: []timeline.Event{{Time: timeline.Epoch.Add(time.Minute), Actor: "operator/etcd", Verb: timeline.VerbUpdateStatus, Object: co,
					Conditions: []timeline.ConditionChange{{Type: "Available", After: &timeline.Condition{Status: "True", Message: "all is well"}}}}}},
		},
	}}}
}

// A warning fails nothing: every format shows it, apart from the failures.
func TestWarnRendering(t *testing.T) {
	r := warnedReport()
	if r.Failed() || r.Errored() {
		t.Fatalf("a warned report is failed (%v) or errored (%v)", r.Failed(), r.Errored())
	}

	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		xmlCounts
		Suites []struct {
			Cases []struct {
				Name      string      `xml:"name,attr"`
				Failure   *xmlProblem `xml:"failure"`
				Skipped   *xmlProblem `xml:"skipped"`
				SystemOut string      `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, junit.String())
	}
	if doc.Tests != 2 || doc.Failures != 0 || doc.Errors != 0 || doc.Skipped != 0 {
		t.Errorf("JUnit counts %+v, want 2 tests and nothing else", doc.xmlCounts)
	}
	warned := doc.Suites[0].Cases[1]
	if warned.Failure != nil || warned.Skipped != nil || !strings.HasPrefix(warned.SystemOut, `warning: ClusterOperator/etcd Available: "all is well" starts with "a"`) ||
		!strings.Contains(warned.SystemOut, `+1m0s operator/etcd update-status ClusterOperator/etcd Available: absent -> True "all is well"`) {
		t.Errorf("warned testcase: %+v", warned)
	}
	if passed := doc.Suites[0].Cases[0]; passed.SystemOut != "" {
		t.Errorf("a passing testcase has output %q", passed.SystemOut)
	}

	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"# opcert report: PASS\n",
		"| Scenario | Subjects | Virtual | Wall | Speed-up | API calls | Verdict | Rules judged | Pass | Warn | Fail | Skip |\n",
		"| upgrade | operator=lowercase | 1h0m0s | 0s | - | 0 | PASS | 2 of 2 | 1 | 1 | 0 | 0 |\n",
		"| CO-021 | 001 §Conditions | every condition message starts with a capital letter | WARN |\n",
		"### CO-021 WARN: every condition message starts with a capital letter\n",
		`+1m0s operator/etcd update-status ClusterOperator/etcd Available: absent -> True "all is well"`,
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"status": "warn"`) {
		t.Errorf("JSON has no warned case:\n%s", js.String())
	}

	var sum bytes.Buffer
	WriteSummary(&sum, r)
	for _, want := range []string{
		`WARN CO-021 upgrade [operator=lowercase]: ClusterOperator/etcd Available: "all is well" starts with "a"` + "\n",
		"PASS: 1 runs (0 could not complete), 2 of 2 rules judged: 1 passed, 1 warned, 0 failed, 0 skipped in 0s\n",
	} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}
