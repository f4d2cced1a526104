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
#  5. runs TestIndexedJobOnKind (cmd/opcert): the Kubernetes Indexed Job
#     recipe (examples/sharding/indexed-job.yaml) with opcert's release
#     image, dist/opcert-image.tar, its shards merged by opcert merge. CI
#     runs make release-check first, which builds the image from the same
#     commit; when it is missing or was built from another commit, this
#     script builds it as release-check's image step does;
#  6. tears everything down on every exit: the clusters, kind's network,
#     the opcert images loaded, the engine it started, and checks that none
#     of it is left.
#
# E2E_KIND_ONLY=TestIndexedJobOnKind (or TestNightlyOnKind) runs one of the
# two tests alone, while working on it.
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
		# The engine's images are kept in opcert's cache: the node image is
		# meant to stay, opcert's image (loaded from a tarball each run, as
		# TestIndexedJobOnKind removes it) is not.
		if [ -n "$started" ]; then
			docker images -q --filter label=org.opencontainers.image.title=opcert | sort -u | xargs -r docker rmi -f >/dev/null || status=1
		fi
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
tests=(TestNightlyOnKind TestIndexedJobOnKind)
[ -z "${E2E_KIND_ONLY:-}" ] || tests=("$E2E_KIND_ONLY")
# The commit an image tarball was built from (its revision label).
image_revision() {
	local config
	config=$(tar -xOf "$1" manifest.json | sed -n 's/.*"Config":"\([^"]*\)".*/\1/p')
	tar -xOf "$1" "$config" | grep -o '"org.opencontainers.image.revision":"[0-9a-f]*"' | cut -d'"' -f4
}
commit=$(git rev-parse HEAD)
if [[ " ${tests[*]} " == *" TestIndexedJobOnKind "* ]]; then
	built=""
	[ ! -f dist/opcert-image.tar ] || built=$(image_revision dist/opcert-image.tar || true)
	if [ "$built" != "$commit" ]; then
		if [ -f dist/opcert-image.tar ]; then
			say "dist/opcert-image.tar was built from ${built:-an unknown commit}, this checkout is at $commit: building it again"
		else
			say "no dist/opcert-image.tar (make release-check builds it): building it from this checkout"
		fi
		# As make release-check's image step, with opcert built here as
		# goreleaser builds it (static, -trimpath, stamped) instead of taken
		# from goreleaser's snapshot.
		date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)
		version=v0.0.0-e2e.${commit:0:12}
		mkdir -p dist
		CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version -X main.commit=$commit -X main.date=$date" \
			-o dist/opcert-image-opcert ./cmd/opcert
		assets=$(bash hack/envtest/build.sh)
		(cd hack/release && go run . image -version "$version" -commit "$commit" -date "$date" \
			-opcert ../../dist/opcert-image-opcert -assets "$assets" -out ../../dist/opcert-image.tar &&
			go run . inspect -version "$version" ../../dist/opcert-image.tar)
		rm dist/opcert-image-opcert
	fi
fi
for test in "${tests[@]}"; do
	case $test in
	TestNightlyOnKind) say "running the nightly workflow's jobs on $OPCERT_KIND_NODE_IMAGE" ;;
	TestIndexedJobOnKind) say "running the Indexed Job recipe (examples/sharding) on $OPCERT_KIND_NODE_IMAGE" ;;
	esac
	OPCERT_KIND_E2E=1 go test ./cmd/opcert -run "^$test\$" -count=1 -v -timeout 40m
done
