package main

import (
	"github.com/spf13/cobra"
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
	root.AddCommand(newRun(), newWatch(), newAnalyze(), newSelftest(), newFuzz(), newPerturb(), newMerge(), newScenarios(), newSubjects(), newRules(), newLint(), newVersion(), newKind(), newMechanisms(), newDocs())
	root.AddCommand(newTools()...)
	return root
}
