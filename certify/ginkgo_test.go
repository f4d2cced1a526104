package certify_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/opcert/opcert/certify"
)

// The team's suite: its own specs, and opcert's registered by one line.
var _ = certify.Describe(certify.Options{Mechanism: "stale", Role: "operator", New: operator,
	Scenarios: []string{"stale-healthy-answer", "stale-restart-after-unknown"}, Config: config})

var _ = Describe("the team's own specs", Label("team"), func() {
	It("run beside opcert's", func() { Expect(true).To(BeTrue()) })
})

// The suite runs with --label-filter=STALE-007 (set here as the flag would):
// only the STALE-007 specs run, one per scenario, and pass; the JUnit report
// lists every spec, labelled, the others skipped.
func TestGinkgoEntryPoint(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the API server")
	}
	RegisterFailHandler(Fail)
	suite, reporter := GinkgoConfiguration()
	suite.LabelFilter = "STALE-007"
	junit := filepath.Join(t.TempDir(), "junit.xml")
	reporter.JUnitReport = junit
	if !RunSpecs(t, "certify", suite, reporter) {
		t.Fatal("the suite failed")
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Status  string    `xml:"status,attr"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(data, &report); err != nil {
		t.Fatal(err)
	}
	ran, skipped := map[string]bool{}, 0
	for _, c := range report.Cases {
		switch {
		case c.Status == "passed":
			ran[c.Name] = true
		case c.Skipped != nil:
			skipped++
		}
	}
	// 2 scenarios x 8 rules, and the team's own spec.
	if len(ran) != 2 || skipped != 15 {
		t.Errorf("ran %d specs %v and skipped %d, want the 2 STALE-007 specs run and 15 skipped", len(ran), ran, skipped)
	}
	for name := range ran {
		if !strings.Contains(name, "stale-") || !strings.Contains(name, "STALE-007: a running operator resets") || !strings.Contains(name, "[opcert, stale, STALE-007]") {
			t.Errorf("spec %q: want the scenario, the rule and its labels in its name", name)
		}
	}
}
