package main

import (
	"strings"
	"testing"
)

// The nightly workflow (examples/kind-nightly/nightly.yaml) as the tests
// read it (workflow_test.go): one job per entry of its matrix.

const nightlyPath = "../../examples/kind-nightly/nightly.yaml"

// nightlyJobs reads the workflow's jobs, one per matrix entry (or one for
// a job without a matrix).
func nightlyJobs(t *testing.T) []jobRun {
	t.Helper()
	_, runs := readWorkflow(t, nightlyPath)
	return runs
}

// usesAction tells whether a step is opcert's own action.
func usesAction(s workflowStep) bool { return strings.HasPrefix(s.Uses, "opcert/opcert@") }
