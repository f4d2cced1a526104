#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy (versions pinned in
# this folder's go.mod) into a per-version cache, and prints that directory on
# the last line of stdout so callers can set KUBEBUILDER_ASSETS from it.
# A second run finds the cache and returns in well under a second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
k8s=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd=$(go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
root=${OPCERT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opcert}
dir="$root/envtest/k8s-${k8s#v}-etcd-${etcd#v}"

if [ -x "$dir/kube-apiserver" ] && [ -x "$dir/etcd" ]; then
	echo "envtest: using cached kube-apiserver $k8s and etcd $etcd" >&2
	echo "$dir"
	exit 0
fi

minor=${k8s#v1.}; minor=${minor%%.*}
stamp=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	stamp="$stamp -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	stamp="$stamp -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done

echo "envtest: building kube-apiserver $k8s and etcd $etcd from the Go module proxy" >&2
echo "envtest: the first build takes about 10 minutes on 2 cores; later runs reuse $dir" >&2
tmp=$(mktemp -d "$root/envtest/.build.XXXXXX" 2>/dev/null || { mkdir -p "$root/envtest"; mktemp -d "$root/envtest/.build.XXXXXX"; })
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s)
echo "envtest: downloading modules" >&2
go mod download
echo "envtest: compiling (go build -v prints each package as it finishes)" >&2
CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w $stamp" -o "$tmp/" \
	k8s.io/kubernetes/cmd/kube-apiserver ./etcd 2>&1 |
	awk '{n++; if (n % 100 == 0) printf "envtest: %d packages compiled (last: %s)\n", n, $0 > "/dev/stderr"}'
[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "envtest: build failed" >&2; exit 1; }
"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version | awk "NR == 1" >&2 # awk reads to the end: head would SIGPIPE etcd and fail the pipeline
mkdir -p "$(dirname "$dir")"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "envtest: built in $(( $(date +%s) - start ))s into $dir" >&2
echo "$dir"
