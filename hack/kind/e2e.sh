#!/usr/bin/env bash
# make e2e-kind: the nightly workflow (examples/kind-nightly/nightly.yaml)
# run here for real, on kind clusters of opcert's node image.
#
#  1. installs what it needs from Debian if missing (docker.io: dockerd,
#     containerd, runc; debootstrap);
#  2. uses the Docker engine that answers, else starts opcert's own
#     (hack/kind/dockerd.sh: runcwrap as its runtime);
#  3. builds the node image, or finds it built (hack/kind/build.sh);
#  4. runs TestNightlyOnKind (cmd/opcert): every job of the workflow's
#     matrix, its own commands, each certification passed, a careless
#     variant failed, no image pulled;
#  5. tears everything down on every exit: the clusters, kind's network,
#     the engine it started, and checks that none of it is left.
#
# Needs root. All traffic stays on this machine: the nodes live in network
# namespaces of the engine's bridge, the API servers are reached on
# 127.0.0.1, and no registry is configured anywhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cd "$repo"
root=${OPCERT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opcert}
say() { echo "e2e-kind: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	say "needs root (dockerd, debootstrap)"
	exit 2
fi
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v debootstrap >/dev/null || need+=(debootstrap)
if ((${#need[@]})); then
	say "installing ${need[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

started=""
teardown() {
	status=$?
	trap - EXIT INT TERM
	say "tearing down"
	if [ -x bin/opcert ] && docker info >/dev/null 2>&1; then
		bin/opcert kind down --name opcert --kubeconfig "$repo/kind.kubeconfig" >/dev/null 2>&1 || true
		docker network rm kind >/dev/null 2>&1 || true
	fi
	rm -f "$repo/kind.kubeconfig"
	if [ -n "$started" ]; then
		hack/kind/dockerd.sh stop || status=1
		left=$(pgrep -af "opcert-dockerd|kind-node|containerd-shim" || true)
		if [ -n "$left" ]; then
			say "left behind:"
			echo "$left" >&2
			status=1
		fi
	fi
	exit "$status"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! docker info >/dev/null 2>&1; then
	eval "$(hack/kind/dockerd.sh start)"
	export DOCKER_HOST
	started=1
fi

OPCERT_KIND_NODE_IMAGE=$(hack/kind/build.sh | tail -n 1)
export OPCERT_KIND_NODE_IMAGE OPCERT_KIND_CONFIG="$repo/hack/kind/cluster.yaml"
k8s=$(cd hack/envtest && go list -m -f '{{.Version}}' k8s.io/kubernetes)
go build -o bin/opcert ./cmd/opcert
export PATH="$repo/bin:$root/kind/bin-${k8s#v}:$PATH"
say "running the nightly workflow's jobs on $OPCERT_KIND_NODE_IMAGE"
OPCERT_KIND_E2E=1 go test ./cmd/opcert -run '^TestNightlyOnKind$' -count=1 -v -timeout 40m
