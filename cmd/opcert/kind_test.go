package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// opcert kind up|down on a machine without a usable container runtime
// (this one: a docker client, no engine) exits 2 saying so and what to
// install, whatever is on PATH. Creating a cluster cannot be tested here.
func TestKindWithoutContainerRuntime(t *testing.T) {
	none := t.TempDir()
	daemonless := t.TempDir()
	write(t, daemonless, "docker", "#!/bin/sh\necho 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n")
	if err := os.Chmod(filepath.Join(daemonless, "docker"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path string
		want       []string
	}{
		{"no runtime on PATH", none, []string{"none of docker, podman, nerdctl is on PATH"}},
		{"a docker client without its daemon", daemonless, []string{"found docker, whose engine does not answer: Cannot connect to the Docker daemon"}},
	} {
		for _, verb := range []string{"up", "down"} {
			r := opcert(t, []string{"PATH=" + tc.path}, "kind", verb, "--name", "opcert-test", "--kubeconfig", filepath.Join(t.TempDir(), "kc"))
			if r.code != 2 {
				t.Errorf("%s: kind %s: exit %d, want 2\n%s", tc.name, verb, r.code, r.stderr)
			}
			for _, s := range append(tc.want, "no container runtime", "Install and start one", "Docker Engine", "Podman") {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("%s: kind %s: the error does not say %q:\n%s", tc.name, verb, s, r.stderr)
				}
			}
		}
	}
}
