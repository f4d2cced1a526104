package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/apiserver"
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
	root.AddCommand(newRun(), newWatch(), newAnalyze(), newSelftest(), newFuzz(), newScenarios(), newSubjects(), newRules(), newLint(), newVersion(), newKind(), newMechanisms(), newDocs())
	root.AddCommand(newTools()...)
	return root
}

// versionInfo is what opcert version prints: which opcert this is and the
// API server it builds, the two facts a bug report needs.
type versionInfo struct {
	Version       string `json:"version"`  // the module version, or "devel"
	Revision      string `json:"revision"` // the VCS commit, when built from a checkout
	Modified      bool   `json:"modified"` // the checkout had uncommitted changes
	GoVersion     string `json:"goVersion"`
	KubeAPIServer string `json:"kubeAPIServer"`
	Etcd          string `json:"etcd"`
}

// buildVersion reads the version from the binary's build information (nil
// when it has none): the module version that go install stamps, and the
// commit that go build stamps in a checkout.
func buildVersion(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Version: "devel", KubeAPIServer: apiserver.KubeVersion, Etcd: apiserver.EtcdVersion}
	if bi == nil {
		return v
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v.Version = bi.Main.Version
	}
	v.GoVersion = bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (v versionInfo) String() string {
	s := "opcert " + v.Version
	if v.Revision != "" {
		s += " revision " + v.Revision[:min(12, len(v.Revision))]
	}
	if v.Modified {
		s += " modified"
	}
	return fmt.Sprintf("%s (kube-apiserver %s, etcd %s)", s, v.KubeAPIServer, v.Etcd)
}

func newVersion() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print opcert's version and the API server versions it builds",
		Args:  cobra.NoArgs,
	}
	format := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		bi, _ := debug.ReadBuildInfo() // nil without build information
		v := buildVersion(bi)
		return printAs(cmd.OutOrStdout(), *format, v, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, v)
			return err
		})
	}
	return cmd
}
