#!/usr/bin/env bash
# make release-check: what a release gives a user, built and tried here.
#  1. goreleaser's snapshot of .goreleaser.yaml (built in a clone of HEAD,
#     moved to dist/): the four archives (linux and darwin on amd64 and
#     arm64), each holding an opcert binary for its platform, and
#     checksums.txt, the checksums verified, the host's binary run: opcert
#     version says the snapshot.
#  2. go install github.com/opcert/opcert/cmd/opcert@VERSION from a clean
#     module cache (GOPATH and GOMODCACHE in a temporary directory,
#     GOFLAGS=-mod=mod; -trimpath and CGO_ENABLED=0 as the release builds,
#     which share their compiled packages): this checkout's HEAD is served as VERSION from a
#     file:// GOPROXY, the dependencies come from the real proxy.
#  3. the container image (opcert and the API server binaries, from scratch
#     layers) to dist/opcert-image.tar, then loaded and inspected.
# Run from the repository's root; RELEASE_CHECK_KEEP=1 keeps the temporary
# directory for a look.
set -euo pipefail
cd "$(dirname "$0")/../.."
GO=${GO:-go}
GORELEASER=${GORELEASER:-github.com/goreleaser/goreleaser/v2@v2.15.1}
module=github.com/opcert/opcert
tmp=$(mktemp -d)
[ -n "${RELEASE_CHECK_KEEP:-}" ] || trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
step() { echo "== release-check: $*"; }
fail() { echo "release-check: $*" >&2; exit 1; }
since() { echo "$(( $(date +%s) - $1 ))s"; }
field() { "$1" version -o yaml | sed -n "s/^$2: //p"; } # a field of opcert version
start=$(date +%s)

step "go vet of hack/release (a module of its own, outside make lint's go vet ./...)"
(cd hack/release && $GO vet ./...)

t=$(date +%s)
step "goreleaser release --snapshot --clean ($GORELEASER)"
# In a clone of HEAD, as a release tag would be built: the committed files
# only, and an origin remote, without which goreleaser's snapshot stamps the
# commit "none".
git clone -q . "$tmp/src"
(cd "$tmp/src" && $GO run "$GORELEASER" release --snapshot --clean) >"$tmp/goreleaser.log" 2>&1 ||
	{ tail -40 "$tmp/goreleaser.log" >&2; fail "goreleaser failed (log above)"; }
rm -rf dist
mv "$tmp/src/dist" dist
goos=$($GO env GOOS) goarch=$($GO env GOARCH)
archives=(dist/opcert_*_{linux,darwin}_{amd64,arm64}.tar.gz)
for a in "${archives[@]}"; do [ -f "$a" ] || fail "no $a in dist/: $(ls dist)"; done
# Each archive's opcert is an executable for the platform its name says:
# the magic and the machine of its ELF (e_machine, bytes 18-19) or Mach-O
# (cputype, bytes 4-7) header, little-endian, in hex.
for a in "${archives[@]}"; do
	platform=${a%.tar.gz} platform=${platform#dist/opcert_*_}
	rm -rf "$tmp/arch" && mkdir "$tmp/arch" && tar -xzf "$a" -C "$tmp/arch" opcert
	head=$(head -c 20 "$tmp/arch/opcert" | od -An -tx1 | tr -d ' \n')
	case $platform in
	linux_*) got=${head:0:8}/${head:36:4} ;;
	darwin_*) got=${head:0:8}/${head:8:8} ;;
	esac
	case $platform in
	linux_amd64) want=7f454c46/3e00 ;;
	linux_arm64) want=7f454c46/b700 ;;
	darwin_amd64) want=cffaedfe/07000001 ;;
	darwin_arm64) want=cffaedfe/0c000001 ;;
	esac
	[ "$got" = "$want" ] || fail "$a: its opcert's header says $got, want $want (an executable for $platform)"
done
(cd dist && sha256sum --quiet -c checksums.txt) || fail "dist/checksums.txt does not match the archives"
[ "$(wc -l <dist/checksums.txt)" -eq ${#archives[@]} ] || fail "dist/checksums.txt lists $(wc -l <dist/checksums.txt) files, want the ${#archives[@]} archives"
mkdir "$tmp/host"
tar -xzf dist/opcert_*_"${goos}_${goarch}".tar.gz -C "$tmp/host"
snapshot=$(field "$tmp/host/opcert" version)
commit=$(git rev-parse HEAD)
[[ $snapshot == v*-snapshot.* ]] || fail "the snapshot's opcert version says $snapshot, want v<version>-snapshot.<commit>"
[ "$(field "$tmp/host/opcert" revision)" = "$commit" ] || fail "the snapshot's opcert is not stamped with HEAD $commit"
echo "release-check: ${#archives[@]} archives and checksums.txt, opcert $snapshot ($(since "$t"))"

t=$(date +%s)
date=$(TZ=UTC git log -1 --date=format-local:%Y%m%d%H%M%S --format=%cd)
version=v0.0.0-$date-${commit:0:12} # the pseudo-version go install @<commit> would resolve
step "go install $module/cmd/opcert@$version from a clean module cache"
(cd hack/release && $GO run . modproxy -repo ../.. -version "$version" -out "$tmp/proxy")
mkdir -p "$tmp/gopath" "$tmp/work"
(cd "$tmp/work" && env GOPATH="$tmp/gopath" GOMODCACHE="$tmp/gopath/pkg/mod" GOBIN="$tmp/bin" GOFLAGS="-mod=mod -trimpath" CGO_ENABLED=0 \
	GOPROXY="file://$tmp/proxy,$($GO env GOPROXY)" GONOSUMDB=$module GOTOOLCHAIN=local \
	$GO install "$module/cmd/opcert@$version")
installed=$(field "$tmp/bin/opcert" version)
[ "$installed" = "$version" ] || fail "the installed opcert says version $installed, want $version"
echo "release-check: go install gave opcert $installed ($(since "$t"))"

t=$(date +%s)
step "container image"
[ "$goos" = linux ] || fail "the image holds linux binaries; run this on linux"
assets=$(bash hack/envtest/build.sh)
(cd hack/release && $GO run . image -version "$snapshot" -commit "$commit" \
	-date "$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)" \
	-opcert "$tmp/host/opcert" -assets "$assets" -out ../../dist/opcert-image.tar)
(cd hack/release && $GO run . inspect -version "$snapshot" ../../dist/opcert-image.tar)
echo "release-check: dist/opcert-image.tar, $(du -h dist/opcert-image.tar | cut -f1) ($(since "$t"))"
echo "release-check: passed in $(since "$start")"
