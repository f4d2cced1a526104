package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/visible"
)

// lintExits is what every linter's help says of exit codes (main.go maps
// the errors).
const lintExits = `Exit codes: 0 no error found (warnings alone pass, unless --strict); 1 an
error found (or, with --strict, a warning); 2 the input's fault (no PATH, a
path that is not what the linter reads, an unknown linter).`

type linterEntry struct {
	Name        string `json:"name"`
	Mechanism   string `json:"mechanism"`
	Seed        string `json:"seed"`
	Description string `json:"description"`
}

// lintReport is what opcert lint NAME PATH -o json|yaml prints.
type lintReport struct {
	Linter    string                    `json:"linter"`
	Mechanism string                    `json:"mechanism"`
	Seed      string                    `json:"seed"`
	Path      string                    `json:"path"`
	Checked   string                    `json:"checked"`
	Errors    int                       `json:"errors"`
	Warnings  int                       `json:"warnings"`
	Strict    bool                      `json:"strict"`
	Passed    bool                      `json:"passed"` // exit 0
	Findings  []conformance.LintFinding `json:"findings"`
}

// newLint is opcert lint: alone it lists the linters, and each registered
// linter is a subcommand.
func newLint() *cobra.Command {
	linters := conformance.Linters()
	var names []string
	for _, l := range linters {
		names = append(names, l.Name)
	}
	cmd := &cobra.Command{
		Use:   "lint [LINTER PATH]",
		Short: "Check files against a mechanism's design before anything runs (opcert lint lists the linters)",
		Long: `Check files against a mechanism's design before anything runs: static checks
that need no API server. Alone, opcert lint lists the linters; each is a
subcommand, "opcert lint LINTER PATH", with its checks in its --help.

` + lintExits,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("no linter %q: the linters are %s (opcert lint lists them)", args[0], strings.Join(names, ", "))
			}
			return nil
		},
	}
	format := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		entries := make([]linterEntry, 0, len(linters))
		for _, l := range linters {
			entries = append(entries, linterEntry{l.Name, l.Mechanism, l.Seed, l.Short})
		}
		return printAs(cmd.OutOrStdout(), *format, entries, func(w io.Writer) error {
			var rows [][]string
			for _, e := range entries {
				rows = append(rows, []string{e.Name, e.Mechanism, e.Seed, e.Description})
			}
			return table(w, "LINTER\tMECHANISM\tSEED\tDESCRIPTION", rows)
		})
	}
	for _, l := range linters {
		cmd.AddCommand(newLinter(l))
	}
	return cmd
}

// newLinter is opcert lint NAME PATH for one linter.
func newLinter(l conformance.Linter) *cobra.Command {
	cmd := &cobra.Command{
		Use:   l.Name + " PATH",
		Short: l.Short,
		Long:  l.Long + "\n\n" + lintExits,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("opcert lint %s takes one path, got %d: run opcert lint %s PATH (its --help says what it reads)", l.Name, len(args), l.Name)
			}
			return nil
		},
	}
	format := outputFlag(cmd)
	strict := cmd.Flags().Bool("strict", false, "count warnings as errors (exit 1)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		path := args[0]
		res, err := l.Run(cmd.Context(), path)
		if err != nil {
			return err
		}
		rep := lintReport{Linter: l.Name, Mechanism: l.Mechanism, Seed: l.Seed, Path: path, Checked: res.Checked,
			Errors: res.Count(conformance.SeverityError), Warnings: res.Count(conformance.SeverityWarning), Strict: *strict,
			Findings: append([]conformance.LintFinding{}, res.Findings...)}
		conformance.SortFindings(rep.Findings)
		rep.Passed = rep.Errors == 0 && (!rep.Strict || rep.Warnings == 0)
		if err := printAs(cmd.OutOrStdout(), *format, rep, func(w io.Writer) error { return printLint(w, rep) }); err != nil {
			return err
		}
		if !rep.Passed {
			return errRulesFailed
		}
		return nil
	}
	return cmd
}

// printLint writes findings as file:line: severity ID: message [section],
// paths as the user gave them (quoted when they hold what does not print
// as itself: LintFinding.String), then a summary line.
func printLint(w io.Writer, rep lintReport) error {
	for _, f := range rep.Findings {
		f.File = filepath.Join(rep.Path, f.File)
		if _, err := fmt.Fprintln(w, f); err != nil {
			return err
		}
	}
	verdict := "passed"
	if !rep.Passed {
		verdict = "failed"
	}
	summary := fmt.Sprintf("%s: %s, %s (%s): %s", visible.Quote(rep.Path), plural(rep.Errors, "error"), plural(rep.Warnings, "warning"), rep.Checked, verdict)
	if rep.Strict && rep.Errors == 0 && rep.Warnings > 0 {
		summary += " (--strict counts warnings)"
	}
	_, err := fmt.Fprintln(w, summary)
	return err
}

// plural writes a count with its noun: "1 error", "2 warnings".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
