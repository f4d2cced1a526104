package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/conformance"
	"github.com/opcert/opcert/conformance/stale"
	"github.com/opcert/opcert/sim/world"
)

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "opcert",
		Short: "Conformance harness for operator status mechanisms",
		Long: `opcert certifies that operators report status as the designs require.

It plays scripted scenarios (operator death, hangs, condition changes) in
virtual time against a real kube-apiserver and etcd (envtest), with the
reference implementation or a deliberately broken subject in each role, and
judges the recorded timeline with rules that cite the design they enforce.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRun(), newScenarios(), newSubjects(), newRules(), newVersion())
	return root
}

// mechanisms are the plug-ins opcert knows, by scenario mechanism name.
func mechanisms(cfg stale.Config) map[string]*conformance.Mechanism {
	m := stale.Mechanism(cfg)
	return map[string]*conformance.Mechanism{m.Name: m}
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print opcert's version and the API server versions it builds",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := "devel"
			if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "opcert %s (kube-apiserver %s, etcd %s)\n", v, world.KubeVersion, world.EtcdVersion)
		},
	}
}
