package main

import (
	"runtime/debug"
	"testing"
)

func TestVersionFromBuildInfoAndStamp(t *testing.T) {
	recorded := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.modified", Value: "true"},
	}}
	released := stamp{version: "v1.3.0", commit: "fedcba9876543210fedcba9876543210fedcba98", date: "2026-11-27T17:00:00Z"}
	for _, tc := range []struct {
		name  string
		bi    *debug.BuildInfo
		stamp stamp
		want  versionInfo
		text  string
	}{
		{"none", nil, stamp{}, versionInfo{Version: "devel", KubeAPIServer: "v1.36.3", Etcd: "v3.6.16"},
			"opcert devel (kube-apiserver v1.36.3, etcd v3.6.16)"},
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, stamp{},
			versionInfo{Version: "devel", GoVersion: "go1.26.8", KubeAPIServer: "v1.36.3", Etcd: "v3.6.16"},
			"opcert devel (kube-apiserver v1.36.3, etcd v3.6.16)"},
		{"go install", recorded, stamp{},
			versionInfo{Version: "v1.2.3", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true, GoVersion: "go1.26.8", KubeAPIServer: "v1.36.3", Etcd: "v3.6.16"},
			"opcert v1.2.3 revision 0123456789ab modified (kube-apiserver v1.36.3, etcd v3.6.16)"},
		// A release build: the linker's stamp wins over what the build recorded.
		{"release", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, released,
			versionInfo{Version: "v1.3.0", Revision: "fedcba9876543210fedcba9876543210fedcba98", Date: "2026-11-27T17:00:00Z", GoVersion: "go1.26.8", KubeAPIServer: "v1.36.3", Etcd: "v3.6.16"},
			"opcert v1.3.0 revision fedcba987654 of 2026-11-27T17:00:00Z (kube-apiserver v1.36.3, etcd v3.6.16)"},
		// make build stamps the commit and its date but no version outside a tag.
		{"make build", nil, stamp{commit: released.commit, date: released.date},
			versionInfo{Version: "devel", Revision: "fedcba9876543210fedcba9876543210fedcba98", Date: "2026-11-27T17:00:00Z", KubeAPIServer: "v1.36.3", Etcd: "v3.6.16"},
			"opcert devel revision fedcba987654 of 2026-11-27T17:00:00Z (kube-apiserver v1.36.3, etcd v3.6.16)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := buildVersion(tc.bi, tc.stamp)
			if got != tc.want {
				t.Errorf("buildVersion = %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.text {
				t.Errorf("text %q, want %q", got.String(), tc.text)
			}
		})
	}
}
