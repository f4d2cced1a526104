package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The nightly workflow (examples/kind-nightly/nightly.yaml) as the tests
// read it: one job per entry of its matrix, with the entry's values put
// in place of ${{ matrix.NAME }}, as GitHub does.

const nightlyPath = "../../examples/kind-nightly/nightly.yaml"

// nightlyWorkflow is what the tests read of the workflow.
type nightlyWorkflow struct {
	Jobs map[string]struct {
		Strategy struct {
			Matrix struct {
				Include []map[string]string `json:"include"`
			} `json:"matrix"`
		} `json:"strategy"`
		Steps []workflowStep `json:"steps"`
	} `json:"jobs"`
}

// nightlyJob is one job the workflow runs: a matrix entry's steps.
type nightlyJob struct {
	entry map[string]string
	steps []workflowStep
}

var matrixRef = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// nightlyJobs reads the workflow's jobs, one per matrix entry (or one for
// a job without a matrix).
func nightlyJobs(t *testing.T) []nightlyJob {
	t.Helper()
	var w nightlyWorkflow
	readYAML(t, nightlyPath, &w)
	var jobs []nightlyJob
	for name, job := range w.Jobs {
		entries := job.Strategy.Matrix.Include
		if len(entries) == 0 {
			entries = []map[string]string{{}}
		}
		for _, e := range entries {
			steps := make([]workflowStep, len(job.Steps))
			for i, s := range job.Steps {
				var err error
				if s.Run, err = expandMatrix(s.Run, e); err == nil {
					s.With, err = expandInputs(s.With, e)
				}
				if err != nil {
					t.Fatalf("%s, job %s, step %q: %v", nightlyPath, name, s.Name, err)
				}
				steps[i] = s
			}
			jobs = append(jobs, nightlyJob{entry: e, steps: steps})
		}
	}
	return jobs
}

// expandMatrix puts an entry's values in place of its references.
func expandMatrix(s string, entry map[string]string) (string, error) {
	var err error
	out := matrixRef.ReplaceAllStringFunc(s, func(ref string) string {
		name := matrixRef.FindStringSubmatch(ref)[1]
		v, ok := entry[name]
		if !ok && err == nil {
			err = fmt.Errorf("%s: the matrix entry has no %q", ref, name)
		}
		return v
	})
	return out, err
}

func expandInputs(with map[string]string, entry map[string]string) (map[string]string, error) {
	if with == nil {
		return nil, nil
	}
	out := make(map[string]string, len(with))
	for k, v := range with {
		var err error
		if out[k], err = expandMatrix(v, entry); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// usesAction tells whether a step is opcert's own action.
func usesAction(s workflowStep) bool { return strings.HasPrefix(s.Uses, "opcert/opcert@") }
