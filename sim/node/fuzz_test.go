package node

import (
	"errors"
	"path"
	"strings"
	"testing"
)

// resolve is the node's only way in from a caller's path: whatever it is
// given, it refuses or yields what path.Clean would, which never climbs
// above the root.
func FuzzResolve(f *testing.F) {
	for _, p := range []string{"/etc/kubernetes", "", ".", "..", "/..", "a/../../b", "./x/", "//etc//./kubernetes/../", "../../../../tmp"} {
		f.Add("/etc/kubernetes/static-pods", p)
		f.Add("/", p)
	}
	f.Fuzz(func(t *testing.T, dir, p string) {
		dir, err := nodePath(dir)
		if err != nil {
			return
		}
		got, err := resolve(dir, p)
		if err != nil {
			if p != "" && !errors.Is(err, ErrOutside) {
				t.Fatalf("resolve(%q, %q): unexpected error %v", dir, p, err)
			}
			return
		}
		want := path.Clean(p)
		if !strings.HasPrefix(p, "/") {
			want = path.Join(dir, p)
		}
		if got != want {
			t.Fatalf("resolve(%q, %q) = %q, want %q", dir, p, got, want)
		}
		if strings.Contains("/"+got+"/", "/../") {
			t.Fatalf("resolve(%q, %q) = %q climbs", dir, p, got)
		}
	})
}
