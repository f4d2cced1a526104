package all_test

import (
	"os"
	"strings"
	"testing"

	"github.com/opcert/opcert/conformance"
)

// proofs name, for every ✔ of the capability table (opcert mechanisms),
// the test that plays it: a team's subject certified in library mode, a
// binary in process mode, a Deployment in cluster mode through a
// kubeconfig, a recording judged (watch/analyze), a stream judged as the
// batch is. A form is a role's (mechanism/role/form); watch and stream
// are the mechanism's (mechanism/column). Each names a test file from the
// repository's root and the test function in it.
var proofs = map[string]string{
	"clusteroperator/operator/library": "conformance/clusteroperator/e2e_test.go:TestConformance", // ReferenceAsTeam, built from the Instance alone
	"clusteroperator/operator/process": "conformance/clusteroperator/processes_e2e_test.go:TestProcessModeCertifiesTheExample",
	"clusteroperator/operator/cluster": "conformance/clusteroperator/cluster_e2e_test.go:TestClusterModeCertifiesTheComponentOperator",
	"clusteroperator/watch":            "cmd/opcert/watch_test.go:TestWatchClusterOperator",
	"clusteroperator/stream":           "conformance/clusteroperator/stream_test.go:TestStreamJudgesAsBatch",

	"olm/aggregator/library": "certify/aggregator_test.go:TestTeamAggregator",
	"olm/aggregator/process": "conformance/olm/aggregator_process_e2e_test.go:TestProcessModeCertifiesTheExampleAggregator",
	"olm/operator/library":   "examples/olmoperator/certify_test.go:TestOperatorIsCertified",
	"olm/operator/process":   "cmd/opcert/process_olm_test.go:TestProcessOLMCertifiesTheExample",
	"olm/operator/cluster":   "conformance/olm/cluster_e2e_test.go:TestClusterModeCertifiesTheOLMOperator",
	"olm/stream":             "conformance/olm/stream_test.go:TestStreamJudgesAsBatch",

	"stackable/operator/library": "certify/stackable_test.go:TestStackableOperatorIsCertified",
	"stackable/operator/process": "conformance/stackable/processes_e2e_test.go:TestProcessModeCertifiesTheExample",
	"stackable/operator/cluster": "conformance/stackable/cluster_e2e_test.go:TestClusterModeCertifiesTheStackableOperator",
	"stackable/watch":            "cmd/opcert/analyze_stackable_test.go:TestAnalyzeStackableRecording",
	"stackable/stream":           "conformance/stackable/rules/stream_test.go:TestStreamJudgesAsBatch",

	"stale/detector/library": "examples/staledetector/certify_test.go:TestDetectorIsCertified",
	"stale/detector/process": "conformance/stale/detector_process_e2e_test.go:TestProcessModeCertifiesTheExampleDetector",
	"stale/detector/cluster": "conformance/stale/detector_cluster_e2e_test.go:TestClusterModeCertifiesTheExampleDetector",
	"stale/operator/library": "examples/staleoperator/certify_test.go:TestOperatorIsCertified",
	"stale/operator/process": "conformance/stale/operator_process_e2e_test.go:TestProcessModeCertifiesTheExampleOnEveryBuiltin",
	"stale/operator/cluster": "conformance/stale/operator_cluster_e2e_test.go:TestClusterModeCertifiesTheExampleOperator",
	"stale/watch":            "cmd/opcert/watch_test.go:TestWatchRecordsAndJudges",
	"stale/stream":           "conformance/stream_test.go:TestStreamJudgesAsBatch",

	"staticpod/startup-monitor/library": "certify/staticpod_test.go:TestStaticpodTeamCores",
	"staticpod/startup-monitor/process": "conformance/staticpod/process_test.go:TestProcessModeStartupMonitor",
	"staticpod/installer/library":       "certify/staticpod_test.go:TestStaticpodTeamCores",
	"staticpod/installer/process":       "conformance/staticpod/commands_test.go:TestProcessModeInstallerAndPruner",
	"staticpod/operator/library":        "certify/staticpod_test.go:TestStaticpodTeamCores",
	"staticpod/pruner/library":          "certify/staticpod_test.go:TestStaticpodTeamCores",
	"staticpod/pruner/process":          "conformance/staticpod/commands_test.go:TestProcessModeInstallerAndPruner",
	"staticpod/watch":                   "conformance/staticpod/recording_test.go:TestAnalyzeJudgesWhatTheAPIShows",
	"staticpod/stream":                  "conformance/staticpod/stream_test.go:TestStreamJudgesAsBatch",
}

// Every ✔ has its proof, every proof names a test that exists, and no ✘
// keeps one: a cell the code no longer offers loses its claim.
func TestEveryCapabilityIsProved(t *testing.T) {
	ms, err := conformance.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	can := map[string]bool{}
	for _, row := range conformance.Capabilities(ms) {
		for _, c := range row.Cells {
			key := row.Mechanism + "/" + row.Role + "/" + c.Column
			if c.Column == conformance.CannotWatch || c.Column == conformance.CannotStream {
				key = row.Mechanism + "/" + c.Column
			}
			can[key] = can[key] || c.Can
		}
	}
	for key, ok := range can {
		if _, proved := proofs[key]; ok && !proved {
			t.Errorf("%s is ✔ with no test named in proofs", key)
		}
	}
	for key, proof := range proofs {
		if !can[key] {
			t.Errorf("%s is not ✔ but proofs names %s for it", key, proof)
		}
		file, test, _ := strings.Cut(proof, ":")
		src, err := os.ReadFile("../../" + file)
		if err != nil || !strings.Contains(string(src), "func "+test+"(t *testing.T)") {
			t.Errorf("%s: no func %s in %s (%v)", key, test, file, err)
		}
	}
}
