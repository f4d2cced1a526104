package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/opcert/opcert/apiserver"
)

// Stamped at link time by the release build (.goreleaser.yaml) and by make
// build: -X main.version=v1.2.3 -X main.commit=<sha> -X main.date=<RFC 3339>.
// Empty in a plain go build or go install, where the build information
// tells what it can (the module version that go install records).
var (
	version string
	commit  string
	date    string
)

// stamp is what the linker wrote into the three variables above.
type stamp struct{ version, commit, date string }

// versionInfo is what opcert version prints: which opcert this is and the
// API server it builds, the two facts a bug report needs.
type versionInfo struct {
	Version       string `json:"version"`        // the release or module version, or "devel"
	Revision      string `json:"revision"`       // the VCS commit, when stamped or built from a checkout
	Date          string `json:"date,omitempty"` // the commit's date, when stamped
	Modified      bool   `json:"modified"`       // the checkout had uncommitted changes
	GoVersion     string `json:"goVersion"`
	KubeAPIServer string `json:"kubeAPIServer"`
	Etcd          string `json:"etcd"`
}

// buildVersion reads the version from the linker's stamp first, then from
// the binary's build information (nil when it has none): the module version
// that go install records, and the commit that go build records in a
// checkout when VCS stamping is on.
func buildVersion(bi *debug.BuildInfo, s stamp) versionInfo {
	v := versionInfo{Version: "devel", KubeAPIServer: apiserver.KubeVersion, Etcd: apiserver.EtcdVersion}
	if bi != nil {
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		v.GoVersion = bi.GoVersion
		for _, set := range bi.Settings {
			switch set.Key {
			case "vcs.revision":
				v.Revision = set.Value
			case "vcs.modified":
				v.Modified = set.Value == "true"
			}
		}
	}
	if s.version != "" {
		v.Version = s.version
	}
	if s.commit != "" {
		v.Revision = s.commit
	}
	v.Date = s.date
	return v
}

func (v versionInfo) String() string {
	s := "opcert " + v.Version
	if v.Revision != "" {
		s += " revision " + v.Revision[:min(12, len(v.Revision))]
	}
	if v.Date != "" {
		s += " of " + v.Date
	}
	if v.Modified {
		s += " modified"
	}
	return fmt.Sprintf("%s (kube-apiserver %s, etcd %s)", s, v.KubeAPIServer, v.Etcd)
}

// thisVersion is this binary's version.
func thisVersion() versionInfo {
	bi, _ := debug.ReadBuildInfo() // nil without build information
	return buildVersion(bi, stamp{version, commit, date})
}

func newVersion() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print opcert's version and the API server versions it builds",
		Args:  cobra.NoArgs,
	}
	format := outputFlag(cmd)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		v := thisVersion()
		return printAs(cmd.OutOrStdout(), *format, v, func(w io.Writer) error {
			_, err := fmt.Fprintln(w, v)
			return err
		})
	}
	return cmd
}
