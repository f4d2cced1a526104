package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// listCmd runs opcert in this process, as the listing commands need no API
// server, and returns what it wrote to stdout.
func listCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// TestListOutputFormats decodes the json and yaml of every listing and looks
// for entries by their stable field names.
func TestListOutputFormats(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		field string   // a field of every entry
		want  []string // values of field that must be listed
		also  map[string]string
	}{
		{[]string{"rules"}, "id", []string{"STALE-001", "STALE-007", "STALE-008"},
			map[string]string{"mechanism": "stale", "section": "000 §Proposal ¶2", "role": "detector"}},
		{[]string{"subjects"}, "subject", []string{"reference", "eager", "slow", "deaf"},
			map[string]string{"mechanism": "stale", "role": "detector", "description": "reference/stale, exactly as the seed reads"}},
		{[]string{"scenarios", "list"}, "name", []string{"stale-healthy-answer", "stale-fleet-24h"},
			map[string]string{"mechanism": "stale", "duration": "1h0m0s", "source": "builtin:01-healthy-answer.yaml"}},
	} {
		for _, format := range []string{"json", "yaml"} {
			name := strings.Join(tc.args, " ") + " -o " + format
			t.Run(name, func(t *testing.T) {
				out, err := listCmd(t, append(tc.args, "-o", format)...)
				if err != nil {
					t.Fatal(err)
				}
				var entries []map[string]any
				if format == "json" {
					err = json.Unmarshal([]byte(out), &entries)
				} else {
					err = yaml.UnmarshalStrict([]byte(out), &entries)
				}
				if err != nil {
					t.Fatalf("%v in:\n%s", err, out)
				}
				var got []string
				for _, e := range entries {
					v, _ := e[tc.field].(string)
					got = append(got, v)
				}
				for _, w := range tc.want {
					if !slices.Contains(got, w) {
						t.Errorf("%s %q not listed; got %q", tc.field, w, got)
					}
				}
				// The first entry of the mechanism named: entries are sorted by
				// mechanism, then as each lists them.
				first := slices.IndexFunc(entries, func(e map[string]any) bool { return e["mechanism"] == tc.also["mechanism"] })
				if first < 0 {
					t.Fatalf("no entry of mechanism %s", tc.also["mechanism"])
				}
				for k, v := range tc.also {
					if entries[first][k] != v {
						t.Errorf("first %s entry: %s = %v, want %q (entry %v)", tc.also["mechanism"], k, entries[first][k], v, entries[first])
					}
				}
			})
		}
	}
}

// The first subject of a role is its reference, and only that one.
func TestListSubjectsMarksReferences(t *testing.T) {
	out, err := listCmd(t, "subjects", "--output", "json")
	if err != nil {
		t.Fatal(err)
	}
	var subjects []subjectEntry
	if err := json.Unmarshal([]byte(out), &subjects); err != nil {
		t.Fatal(err)
	}
	refs := map[string][]string{} // mechanism.role -> its references
	for _, s := range subjects {
		role := s.Mechanism + "." + s.Role
		if _, ok := refs[role]; !ok {
			refs[role] = nil
		}
		if s.Reference {
			refs[role] = append(refs[role], s.Subject)
		}
	}
	for _, role := range []string{"stale.detector", "stale.operator"} {
		if _, ok := refs[role]; !ok {
			t.Errorf("role %s not listed", role)
		}
	}
	for role, names := range refs {
		if !slices.Equal(names, []string{"reference"}) {
			t.Errorf("role %s: references %q, want exactly [reference]", role, names)
		}
	}
}

// Text stays the default, so what people and scripts read today is unchanged.
func TestListOutputTextIsTheDefault(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		header string
	}{
		{[]string{"rules"}, "RULE "},
		{[]string{"subjects"}, "MECHANISM "},
		{[]string{"scenarios", "list"}, "NAME "},
		{[]string{"version"}, "opcert devel (kube-apiserver v1.36.3, etcd v3.6.16)"},
	} {
		def, err := listCmd(t, tc.args...)
		if err != nil {
			t.Fatal(err)
		}
		text, err := listCmd(t, append(tc.args, "-o", "text")...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(def, tc.header) || def != text {
			t.Errorf("%v: default output\n%s\nwant it to start with %q and equal -o text:\n%s", tc.args, def, tc.header, text)
		}
	}
}

func TestOutputUnknownFormatIsAnError(t *testing.T) {
	for _, args := range [][]string{{"rules"}, {"subjects"}, {"scenarios", "list"}, {"version"}} {
		out, err := listCmd(t, append(args, "-o", "xml")...)
		want := `--output "xml" is not a format; use one of: text, json, yaml`
		if err == nil || err.Error() != want {
			t.Errorf("%v -o xml: error %v, want %q", args, err, want)
		}
		if out != "" {
			t.Errorf("%v -o xml wrote %q", args, out)
		}
	}
}

func TestVersionOutput(t *testing.T) {
	out, err := listCmd(t, "version", "-o", "yaml")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := yaml.UnmarshalStrict([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{"version": "devel", "kubeAPIServer": "v1.36.3", "etcd": "v3.6.16", "modified": false} {
		if v[k] != want {
			t.Errorf("%s = %v, want %v (in %v)", k, v[k], want, v)
		}
	}
	for _, k := range []string{"revision", "goVersion"} {
		if _, ok := v[k]; !ok {
			t.Errorf("no %s in %v", k, v)
		}
	}
}

// cobra's completion command works for every shell it supports, and -o
// completes to the formats.
func TestOutputShellCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash":       "# bash completion V2 for opcert",
		"zsh":        "#compdef opcert",
		"fish":       "# fish completion for opcert",
		"powershell": "# powershell completion for opcert",
	} {
		out, err := listCmd(t, "completion", shell)
		if err != nil || !strings.HasPrefix(out, want) {
			t.Errorf("completion %s: %v, output starts %q, want %q", shell, err, out[:min(len(out), 60)], want)
		}
	}
	for args, formats := range map[string]string{"rules": "text\njson\nyaml\nmarkdown", "subjects": "text\njson\nyaml",
		"scenarios list": "text\njson\nyaml", "version": "text\njson\nyaml"} {
		out, err := listCmd(t, append(append([]string{"__complete"}, strings.Fields(args)...), "-o", "")...)
		if got, _, _ := strings.Cut(out, "\n:"); err != nil || got != formats {
			t.Errorf("completing %v -o: %v, got %q", args, err, out)
		}
	}
}

// A mechanism with more than one rule profile lists its rules once per
// profile, and the statements show how they differ.
func TestListRulesShowsEveryProfile(t *testing.T) {
	out, err := listCmd(t, "rules", "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var rules []ruleEntry
	if err := json.Unmarshal([]byte(out), &rules); err != nil {
		t.Fatal(err)
	}
	statements := map[string]string{}
	for _, r := range rules {
		statements[r.Mechanism+"/"+r.Profile+"/"+r.ID] = r.Statement
	}
	seed, upstream := statements["staticpod/seed/STATICPOD-007"], statements["staticpod/library-go/STATICPOD-007"]
	if !strings.Contains(seed, "10m0s") || !strings.Contains(seed, "6h0m0s") || !strings.Contains(upstream, "20m0s") || !strings.Contains(upstream, "2h0m0s") {
		t.Errorf("STATICPOD-007 by profile: seed %q, library-go %q", seed, upstream)
	}
	if _, ok := statements["stale/seed/STALE-007"]; !ok {
		t.Error("a mechanism with one design lists its rules under profile seed")
	}
}
