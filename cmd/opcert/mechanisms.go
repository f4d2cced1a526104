package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	// The mechanisms opcert knows, each registered from its package's init
	// (its roles, subjects, rules, flags and scenario kinds).
	_ "github.com/opcert/opcert/conformance/all"
)

// columnTitles are the capability table's column titles.
var columnTitles = map[string]string{
	string(conformance.FormLibrary): "library",
	string(conformance.FormProcess): "process",
	string(conformance.FormCluster): "cluster",
	conformance.CannotWatch:         "watch/analyze",
	conformance.CannotStream:        "streaming judge",
}

func newMechanisms() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mechanisms",
		Short: "Print what each mechanism's roles can be played as, and whether it can be recorded and judged streaming",
		Long: `Print the capability table of the mechanisms, one row per role, computed
from what each mechanism declares:

  library          a team's Go reconciler plays the role (package certify)
  process          an executable plays it: --subject ROLE=exec:COMMAND
  cluster          a Deployment on a cluster plays it: --subject ROLE=deployment:NS/NAME
  watch/analyze    the mechanism's objects can be recorded from a live cluster
                   (opcert watch, opcert analyze)
  streaming judge  its rules judge a timeline one event at a time, in bounded memory

Each cell is ✔ or ✘; every ✘ carries the mechanism's reason (footnotes in the
table and markdown formats).`,
		Args: cobra.NoArgs,
	}
	format := cmd.Flags().StringP("output", "o", "table", "output format: table, markdown, json, yaml")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"table", "markdown", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		ms, err := conformance.Defaults()
		if err != nil {
			return err
		}
		rows := conformance.Capabilities(ms)
		w := cmd.OutOrStdout()
		switch *format {
		case "table":
			return capabilityTable(w, rows)
		case "markdown":
			return capabilityMarkdown(w, rows)
		case "json", "yaml":
			return printAs(w, *format, rows, nil)
		}
		return fmt.Errorf("--output %q is not a format; use one of: table, markdown, json, yaml", *format)
	}
	return cmd
}

// footnotes numbers the reasons of the table's ✘ cells, each reason once.
type footnotes struct {
	n   map[string]int
	why []string
}

// mark is a cell as the table shows it: ✔, or ✘ and its footnote.
func (f *footnotes) mark(c conformance.Cell) string {
	if c.Can {
		return "✔"
	}
	if f.n == nil {
		f.n = map[string]int{}
	}
	n, ok := f.n[c.Why]
	if !ok {
		f.why = append(f.why, c.Why)
		n = len(f.why)
		f.n[c.Why] = n
	}
	return fmt.Sprintf("✘ [%d]", n)
}

// titles are the column titles after the row's own.
func titles() []string {
	var out []string
	for _, c := range conformance.Columns {
		out = append(out, columnTitles[c])
	}
	return out
}

func capabilityTable(w io.Writer, rows []conformance.Capability) error {
	var f footnotes
	var cells [][]string
	for _, r := range rows {
		line := []string{r.Mechanism + " (" + r.Seed + ")", r.Role}
		for _, c := range r.Cells {
			line = append(line, f.mark(c))
		}
		cells = append(cells, line)
	}
	header := "MECHANISM\tROLE\t" + strings.ToUpper(strings.Join(titles(), "\t"))
	if err := table(w, header, cells); err != nil {
		return err
	}
	for i, why := range f.why {
		if _, err := fmt.Fprintf(w, "\n[%d] %s", i+1, why); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func capabilityMarkdown(w io.Writer, rows []conformance.Capability) error {
	var f footnotes
	var b strings.Builder
	fmt.Fprintf(&b, "| | %s |\n|---|%s\n", strings.Join(titles(), " | "), strings.Repeat("---|", len(conformance.Columns)))
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s (%s) |", r.Mechanism, r.Role)
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", f.mark(c))
		}
		b.WriteString("\n")
	}
	if len(f.why) > 0 {
		b.WriteString("\n")
	}
	for i, why := range f.why {
		fmt.Fprintf(&b, "%d. %s\n", i+1, why) // a numbered list: [n] is the cell's mark
	}
	_, err := io.WriteString(w, b.String())
	return err
}
