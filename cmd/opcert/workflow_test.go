package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"testing"
)

// GitHub workflows as the tests read them (examples/kind-nightly/nightly.yaml,
// examples/sharding/github-actions.yaml): each job once per entry of its
// matrix, with the entry's values in place of ${{ matrix.NAME }}, as
// GitHub does.

// workflow is what the tests read of a workflow.
type workflow struct {
	Env  scalars                `json:"env"`
	Jobs map[string]workflowJob `json:"jobs"`
}

// workflowJob is what the tests read of a job.
type workflowJob struct {
	Needs    names   `json:"needs"`
	If       string  `json:"if"`
	Env      scalars `json:"env"`
	Strategy struct {
		FailFast *bool          `json:"fail-fast"`
		Matrix   workflowMatrix `json:"matrix"`
	} `json:"strategy"`
	Steps []workflowStep `json:"steps"`
}

// env is the environment the job's steps see: the workflow's, then the
// job's.
func (w workflow) env(job string) map[string]string {
	env := maps.Clone(map[string]string(w.Env))
	if env == nil {
		env = map[string]string{}
	}
	maps.Copy(env, w.Jobs[job].Env)
	return env
}

// jobRun is one job GitHub runs: a job of the workflow for one entry of
// its matrix (the empty entry without a matrix), its steps' scripts,
// names and inputs with the entry's values in place.
type jobRun struct {
	job   string
	entry map[string]string
	steps []workflowStep
}

// readWorkflow reads a workflow and the jobs GitHub runs of it, by job
// name and then in the matrix's order.
func readWorkflow(t *testing.T, path string) (workflow, []jobRun) {
	t.Helper()
	var w workflow
	readYAML(t, path, &w)
	var runs []jobRun
	for _, name := range slices.Sorted(maps.Keys(w.Jobs)) {
		job := w.Jobs[name]
		entries, err := job.Strategy.Matrix.entries()
		if err != nil {
			t.Fatalf("%s, job %s: %v", path, name, err)
		}
		for _, e := range entries {
			steps := make([]workflowStep, len(job.Steps))
			for i, s := range job.Steps {
				var err error
				if s.Run, err = expandMatrix(s.Run, e); err == nil {
					if s.Name, err = expandMatrix(s.Name, e); err == nil {
						s.With, err = expandInputs(s.With, e)
					}
				}
				if err != nil {
					t.Fatalf("%s, job %s, step %q: %v", path, name, s.Name, err)
				}
				steps[i] = s
			}
			runs = append(runs, jobRun{job: name, entry: e, steps: steps})
		}
	}
	return w, runs
}

// runsOf are the runs of one job.
func runsOf(runs []jobRun, job string) []jobRun {
	var out []jobRun
	for _, r := range runs {
		if r.job == job {
			out = append(out, r)
		}
	}
	return out
}

// workflowMatrix is a job's strategy.matrix: lists of values by name (a
// job for each combination), or include's entries alone.
type workflowMatrix map[string]json.RawMessage

// entries are the matrix's entries in GitHub's order; one empty entry
// without a matrix. The tests do not expand exclude, nor include beside
// lists (GitHub then adds to the combinations): a workflow that has them
// is refused rather than read wrong.
func (m workflowMatrix) entries() ([]map[string]string, error) {
	if _, ok := m["exclude"]; ok {
		return nil, errors.New("the tests do not expand a matrix's exclude")
	}
	if raw, ok := m["include"]; ok {
		if len(m) > 1 {
			return nil, errors.New("the tests expand include alone, not beside a matrix's lists")
		}
		var include []scalars
		if err := json.Unmarshal(raw, &include); err != nil {
			return nil, fmt.Errorf("matrix include: %w", err)
		}
		out := make([]map[string]string, len(include))
		for i, e := range include {
			out[i] = e
		}
		return out, nil
	}
	out := []map[string]string{{}}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		var values []scalar
		if err := json.Unmarshal(m[name], &values); err != nil {
			return nil, fmt.Errorf("matrix %s: %w", name, err)
		}
		var next []map[string]string
		for _, e := range out {
			for _, v := range values {
				e := maps.Clone(e)
				e[name] = string(v)
				next = append(next, e)
			}
		}
		out = next
	}
	return out, nil
}

// scalar is a YAML scalar as GitHub reads an input, an environment
// variable or a matrix value: a string, whatever its YAML type (1, true).
type scalar string

func (s *scalar) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	switch v := v.(type) {
	case string:
		*s = scalar(v)
	case json.Number, bool:
		*s = scalar(fmt.Sprint(v))
	case nil:
		*s = ""
	default:
		return fmt.Errorf("%s is not a scalar", data)
	}
	return nil
}

// scalars are a mapping of scalars (with:, env:, a matrix entry).
type scalars map[string]string

func (m *scalars) UnmarshalJSON(data []byte) error {
	var raw map[string]scalar
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = make(scalars, len(raw))
	for k, v := range raw {
		(*m)[k] = string(v)
	}
	return nil
}

// names are a job's needs: one job's name or a list.
type names []string

func (n *names) UnmarshalJSON(data []byte) error {
	var one string
	if err := json.Unmarshal(data, &one); err == nil {
		*n = names{one}
		return nil
	}
	return json.Unmarshal(data, (*[]string)(n))
}

var matrixRef = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

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

func expandInputs(with scalars, entry map[string]string) (scalars, error) {
	if with == nil {
		return nil, nil
	}
	out := make(scalars, len(with))
	for k, v := range with {
		var err error
		if out[k], err = expandMatrix(v, entry); err != nil {
			return nil, err
		}
	}
	return out, nil
}
