package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
)

// newTools are the mechanisms' own commands (conformance.Tool): one
// command per mechanism that has tools, "opcert <mechanism>", with a
// subcommand per tool.
func newTools() []*cobra.Command {
	groups := map[string]*cobra.Command{}
	var out []*cobra.Command
	for _, t := range conformance.Tools() {
		group := groups[t.Mechanism]
		if group == nil {
			group = &cobra.Command{
				Use:   t.Mechanism,
				Short: fmt.Sprintf("Tools of mechanism %s (seed %s): questions its design answers without a cluster", t.Mechanism, t.Seed),
				Args:  cobra.NoArgs,
				RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
			}
			groups[t.Mechanism] = group
			out = append(out, group)
		}
		group.AddCommand(newTool(t))
	}
	return out
}

// newTool is opcert <mechanism> <tool> for one tool.
func newTool(t conformance.Tool) *cobra.Command {
	cmd := &cobra.Command{
		Use:   t.Name + " " + t.Usage,
		Short: t.Short,
		Long:  t.Long + "\n\nExit codes: 0 done; 2 the input's fault (a file that cannot be read, a bad flag).",
	}
	run := t.Flags(cmd.Flags())
	cmd.RunE = func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), args, cmd.OutOrStdout()) }
	return cmd
}
