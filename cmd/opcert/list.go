package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/scenarios"
)

func newScenarios() *cobra.Command {
	cmd := &cobra.Command{Use: "scenarios", Short: "Work with scenarios"}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the built-in scenarios",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := scenarios.Builtin()
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tMECHANISM\tDURATION\tDESCRIPTION")
			for _, s := range all {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Name, s.Mechanism, s.Duration.Duration, firstLine(s.Description))
			}
			return w.Flush()
		},
	})
	return cmd
}

func newSubjects() *cobra.Command {
	return &cobra.Command{
		Use:   "subjects",
		Short: "List the roles of each mechanism and the subjects that can fill them",
		Long: `List the roles of each mechanism and the subjects that can fill them.

The first subject of a role is the reference; the others are broken on
purpose, each to show that a rule catches a real fault. Choose them with
opcert run --subject role=subject.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "MECHANISM\tROLE\tSUBJECT\tDESCRIPTION")
			for _, m := range sortedMechanisms(stale.DefaultConfig()) {
				for _, r := range m.Roles {
					for _, s := range r.Subjects {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", m.Name, r.Name, s.Name, s.Description)
					}
				}
			}
			return w.Flush()
		},
	}
}

func newRules() *cobra.Command {
	return &cobra.Command{
		Use:   "rules",
		Short: "List the conformance rules with the seed section each enforces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "RULE\tSECTION\tROLE\tSTATEMENT")
			for _, m := range sortedMechanisms(stale.DefaultConfig()) {
				for _, r := range m.Rules {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", r.ID, r.Section, r.Role, r.Statement)
				}
			}
			return w.Flush()
		},
	}
}
