package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/scenarios"
)

// outputFormats are the values of -o on the listing commands and version:
// text for people (the default), json and yaml for scripts. The field names
// of json and yaml are lowerCamelCase and stable: scripts depend on them.
var outputFormats = []string{"text", "json", "yaml"}

// outputFlag adds -o/--output to cmd, with shell completion of its values:
// the formats every listing has and the command's extra ones.
func outputFlag(cmd *cobra.Command, extra ...string) *string {
	formats := append(slices.Clone(outputFormats), extra...)
	format := cmd.Flags().StringP("output", "o", "text", "output format: "+strings.Join(formats, ", "))
	// Registering fails only for a flag that does not exist or has a
	// completion already; neither can happen on the line after defining it.
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
	return format
}

// printAs writes v as json or yaml, or calls text for the text format.
func printAs(w io.Writer, format string, v any, text func(io.Writer) error) error {
	switch format {
	case "text":
		return text(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return fmt.Errorf("--output %q is not a format; use one of: %s", format, strings.Join(outputFormats, ", "))
}

// table writes rows under a header, in aligned columns.
func table(w io.Writer, header string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

type scenarioEntry struct {
	Name        string `json:"name"`
	Mechanism   string `json:"mechanism"`
	Duration    string `json:"duration"` // as Go writes it, like the file: "24h0m0s"
	Description string `json:"description"`
	Source      string `json:"source"` // builtin:<file>
}

func newScenarios() *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "Work with scenarios"}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
	}
	format := outputFlag(list)
	list.RunE = func(cmd *cobra.Command, _ []string) error {
		all, err := scenarios.Builtin()
		if err != nil {
			return err
		}
		entries := make([]scenarioEntry, 0, len(all))
		for _, s := range all {
			entries = append(entries, scenarioEntry{s.Name, s.Mechanism, s.Duration.String(), s.Description, s.Source})
		}
		return printAs(cmd.OutOrStdout(), *format, entries, func(w io.Writer) error {
			var rows [][]string
			for _, e := range entries {
				rows = append(rows, []string{e.Name, e.Mechanism, e.Duration, firstLine(e.Description)})
			}
			return table(w, "NAME\tMECHANISM\tDURATION\tDESCRIPTION", rows)
		})
	}
	cmd.AddCommand(list)
	return cmd
}

type subjectEntry struct {
	Mechanism string `json:"mechanism"`
	Role      string `json:"role"`
	Subject   string `json:"subject"`
	Reference bool   `json:"reference"` // the role's reference implementation
	// Kind is what the subject is: reference, faithful (a variant written
	// from the seed, that must fail no rule), profile (another design's,
	// e.g. library-go), mutant (broken on purpose) or external (a team's
	// executable or Deployment).
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// subjectKind names what s is in role r, for the listing.
func subjectKind(r conformance.Role, s conformance.Subject) string {
	switch {
	case s.Name == r.Subjects[0].Name:
		return "reference"
	case s.Faithful:
		return "faithful"
	case s.Profile != "":
		return "profile"
	}
	return "mutant"
}

func newSubjects() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "subjects",
		Short: "List the roles of each mechanism and the subjects that can fill them",
		Long: `List the roles of each mechanism and the subjects that can fill them.

The first subject of a role is the reference. KIND says what the others are:
mutant (broken on purpose, each to show that a rule catches a real fault),
faithful (a variant written from the seed that differs from the reference
wherever the seed allows, to show that the rules accept it: it must fail no
rule), profile (what an upstream project shipped; it may depart from the
seed where that project does), external (your own operator). Choose them with
opcert run --subject role=subject. A role that takes your own operator lists
the forms it takes: exec:COMMAND (process mode), deployment:NS/NAME (cluster
mode). opcert mechanisms shows, for every role, which forms it takes (a Go
reconciler too, in library mode) and why not the others.`,
		Args: cobra.NoArgs,
	}
	format := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var entries []subjectEntry
		mechs, err := conformance.Defaults()
		if err != nil {
			return err
		}
		for _, m := range mechs {
			for _, r := range m.Roles() {
				for i, s := range r.Subjects {
					entries = append(entries, subjectEntry{m.Name(), r.Name, s.Name, i == 0, subjectKind(r, s), s.Description})
				}
				if r.Takes(conformance.FormProcess) {
					entries = append(entries,
						subjectEntry{m.Name(), r.Name, "exec:COMMAND", false, "external", "your executable, one process per instance, in real time ({name}: the object it owns; process mode)"})
				}
				if r.Takes(conformance.FormCluster) {
					entries = append(entries,
						subjectEntry{m.Name(), r.Name, "deployment:NS/NAME", false, "external", "your Deployment on the --kubeconfig cluster, in real time ({name}: the object it owns; cluster mode)"})
				}
			}
		}
		return printAs(cmd.OutOrStdout(), *format, entries, func(w io.Writer) error {
			var rows [][]string
			for _, e := range entries {
				rows = append(rows, []string{e.Mechanism, e.Role, e.Subject, e.Kind, e.Description})
			}
			return table(w, "MECHANISM\tROLE\tSUBJECT\tKIND\tDESCRIPTION", rows)
		})
	}
	return cmd
}

type ruleEntry struct {
	ID        string `json:"id"`
	Mechanism string `json:"mechanism"`
	Profile   string `json:"profile"` // the design judged against: seed, or an upstream's (library-go)
	Section   string `json:"section"` // of the seed, like "000 §Proposal ¶2"
	Role      string `json:"role"`    // whose subject the rule judges
	Statement string `json:"statement"`
	// Class is MUST (the seed requires it: a failure) or SHOULD (it
	// recommends it: a warning, a failure under --strict).
	Class string `json:"class"`
	// ReactionBound is the mechanism's default reaction bound, in
	// nanoseconds (0: it judges no reaction).
	ReactionBound time.Duration `json:"reactionBoundNanos,omitempty"`
}

func newRules() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the conformance rules with the seed section each enforces",
		Long: `List the conformance rules with the seed section each enforces.

A mechanism whose rules can judge against more than one design (the seed, and
what an upstream project shipped) lists its rules once per profile: the
statements say where the profiles differ. A run chooses the profile with the
mechanism's flag (e.g. --staticpod-profile library-go).

CLASS is MUST for what the seed requires (a failure fails the run) and SHOULD
for what it recommends or shows by example (a convention: a warning, a
failure only under --strict). What the seed leaves open is not judged and has
no rule. Under the table, each mechanism's default reaction bound: how long a
subject may take to act on a change it can see (--reaction-bound).`,
		Args: cobra.NoArgs,
	}
	format := outputFlag(cmd, "markdown")
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		var entries []ruleEntry
		rules, err := conformance.ProfiledRules()
		if err != nil {
			return err
		}
		for _, r := range rules {
			entries = append(entries, ruleEntry{r.ID, r.Mechanism, r.Profile, r.Section, r.Role, r.Statement, r.Class(), r.Reaction})
		}
		if *format == "markdown" {
			return rulesMarkdown(cmd.OutOrStdout(), entries)
		}
		return printAs(cmd.OutOrStdout(), *format, entries, func(w io.Writer) error {
			var rows [][]string
			var bounds []string
			for _, e := range entries {
				rows = append(rows, []string{e.ID, e.Class, e.Profile, e.Section, e.Role, e.Statement})
				if b := e.Mechanism + " " + e.ReactionBound.String(); e.ReactionBound > 0 && !slices.Contains(bounds, b) {
					bounds = append(bounds, b)
				}
			}
			if err := table(w, "RULE\tCLASS\tPROFILE\tSECTION\tROLE\tSTATEMENT", rows); err != nil {
				return err
			}
			if len(bounds) > 0 {
				_, err := fmt.Fprintf(w, "\nReaction bounds (--reaction-bound): %s.\n", strings.Join(bounds, ", "))
				return err
			}
			return nil
		})
	}
	return cmd
}
