#!/usr/bin/env bash
# Builds opcert's kind node image on this machine, with no image registry:
# a Debian root file system (debootstrap: systemd, containerd, runc, the
# CNI plugins, iptables), the Kubernetes binaries of hack/envtest's
# go.mod built from the Go module proxy, and the control plane's images
# (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
# etcd, pause) built from those binaries and imported into the node's
# containerd at boot. The image goes into the engine DOCKER_HOST names
# (hack/kind/dockerd.sh); its tag is the last line of stdout.
#
# Each stage is cached under opcert's cache directory, as hack/envtest's
# binaries are: the binaries per Kubernetes version, the root file system
# per package list, the image per content of this folder. A run that
# finds the image in the engine returns at once.
#
# Needs root (debootstrap, chroot), debootstrap, and a Docker engine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=${OPCERT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opcert}
cache="$root/kind"
say() { echo "kind-node: $*" >&2; }

k8s=$(cd "$repo/hack/envtest" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
etcd=$(cd "$repo/hack/envtest" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
suite=bookworm
packages=systemd,systemd-sysv,dbus,containerd,runc,containernetworking-plugins,iptables,conntrack,ethtool,socat,iproute2,kmod,mount,util-linux,procps,ca-certificates,libseccomp2
key=$({ echo "$k8s $etcd $suite $packages"; cat "$here/build.sh" "$here"/node/* "$here"/pause/*.go; } | sha256sum | cut -c1-12)
tag="opcert.local/kind-node:$k8s-$key"

if docker image inspect "$tag" >/dev/null 2>&1; then
	say "using $tag, built before"
	echo "$tag"
	exit 0
fi
start=$(date +%s)
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# 1. The Kubernetes binaries: kube-apiserver and etcd are envtest's; the
#    rest are built from the same module, at the same version.
assets=$("$repo/hack/envtest/build.sh" | tail -n 1)
bin="$cache/bin-${k8s#v}"
if [ ! -x "$bin/kubelet" ]; then
	say "building kubelet, kubeadm, kubectl, kube-controller-manager, kube-scheduler and kube-proxy $k8s (about 5 minutes on 2 cores after envtest's build, more from a cold Go cache)"
	minor=${k8s#v1.}; minor=${minor%%.*}
	stamp=""
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		stamp="$stamp -X $pkg.gitVersion=$k8s -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	done
	(cd "$repo/hack/envtest" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w $stamp" -o "$tmp/bin/" \
		k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubectl \
		k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-proxy)
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/bin/pause" ./hack/kind/pause)
	rm -rf "$bin"
	mv "$tmp/bin" "$bin"
fi

# 2. The root file system, from Debian's packages.
rootfs="$cache/rootfs-$suite-$(echo "$packages" | sha256sum | cut -c1-12).tar"
if [ ! -f "$rootfs" ]; then
	say "debootstrap $suite with $packages (about 3 minutes)"
	debootstrap --variant=minbase --include="$packages" "$suite" "$tmp/debootstrap" http://deb.debian.org/debian >"$tmp/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$tmp/debootstrap.log" >&2; say "debootstrap failed"; exit 1; }
	# What a node never uses: the packages' archives, documentation, locales.
	rm -rf "$tmp/debootstrap/var/cache/apt/archives/"*.deb "$tmp/debootstrap/var/lib/apt/lists/"* \
		"$tmp/debootstrap/usr/share/doc" "$tmp/debootstrap/usr/share/man" "$tmp/debootstrap/usr/share/locale"
	tar -C "$tmp/debootstrap" -cf "$tmp/rootfs.tar" .
	mv "$tmp/rootfs.tar" "$rootfs"
	rm -rf "$tmp/debootstrap"
fi

# 3. The node: the root file system, the binaries, the node's own files.
say "assembling the node"
fs="$tmp/rootfs"
mkdir -p "$fs"
tar -C "$fs" -xf "$rootfs"
install -m 0755 "$bin"/kubelet "$bin"/kubeadm "$bin"/kubectl "$fs/usr/local/bin/"
install -m 0755 "$here/node/entrypoint" "$fs/usr/local/bin/entrypoint"
install -m 0644 "$here/node/containerd.toml" "$fs/etc/containerd/config.toml"
install -m 0644 "$here/node/kubelet.service" "$here/node/opcert-images.service" "$fs/etc/systemd/system/"
mkdir -p "$fs/etc/cni/net.d" "$fs/kind/images"
install -m 0644 "$here/node/10-opcert.conflist" "$fs/etc/cni/net.d/"
echo "$k8s" >"$fs/kind/version"
for unit in kubelet.service opcert-images.service containerd.service; do
	ln -sf "/etc/systemd/system/$unit" "$fs/etc/systemd/system/multi-user.target.wants/$unit"
done
ln -sf /lib/systemd/system/containerd.service "$fs/etc/systemd/system/multi-user.target.wants/containerd.service"
# Nothing a node runs logs in or upgrades packages.
for unit in getty.target apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer; do
	ln -sf /dev/null "$fs/etc/systemd/system/$unit"
done

# 4. The control plane's images, FROM scratch: each binary, and for
#    kube-proxy the iptables commands it runs, with the libraries they load.
say "building the control plane's images"
image() { # image TAG... -- DIR: an image of DIR's files
	local tags=() dir
	while [ "$1" != -- ]; do tags+=(-t "$1"); shift; done
	dir=$2
	printf 'FROM scratch\nCOPY . /\nENV PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n' |
		DOCKER_BUILDKIT=0 docker build -q "${tags[@]}" -f - "$dir" >/dev/null
}
stage() { # stage NAME BINARY...: a directory holding the binaries in /usr/local/bin
	local name=$1
	shift
	mkdir -p "$tmp/images/$name/usr/local/bin"
	cp "$@" "$tmp/images/$name/usr/local/bin/"
}
images=()
for c in kube-controller-manager kube-scheduler; do
	stage "$c" "$bin/$c"
	image "registry.k8s.io/$c:$k8s" -- "$tmp/images/$c"
	images+=("registry.k8s.io/$c:$k8s")
done
stage kube-apiserver "$assets/kube-apiserver"
image "registry.k8s.io/kube-apiserver:$k8s" -- "$tmp/images/kube-apiserver"
stage etcd "$assets/etcd"
image "registry.k8s.io/etcd:${etcd#v}-0" -- "$tmp/images/etcd"
# pause:3.10.2 is containerd's sandbox image (node/containerd.toml);
# pause:3.10 is the product image of the example stackable operator.
stage pause "$bin/pause"
mv "$tmp/images/pause/usr/local/bin/pause" "$tmp/images/pause/pause"
printf 'FROM scratch\nCOPY pause /pause\nENTRYPOINT ["/pause"]\n' |
	DOCKER_BUILDKIT=0 docker build -q -t registry.k8s.io/pause:3.10.2 -t registry.k8s.io/pause:3.10 -f - "$tmp/images/pause" >/dev/null
images+=("registry.k8s.io/kube-apiserver:$k8s" "registry.k8s.io/etcd:${etcd#v}-0" registry.k8s.io/pause:3.10.2 registry.k8s.io/pause:3.10)
stage kube-proxy "$bin/kube-proxy"
proxy="$tmp/images/kube-proxy"
tools=(/usr/sbin/xtables-nft-multi /usr/sbin/conntrack)
mapfile -t extensions < <(cd "$fs" && ls -d usr/lib/*/xtables/*.so | sed 's|^|/|')
for f in "${tools[@]}" "${extensions[@]}" $(chroot "$fs" ldd "${tools[@]}" "${extensions[@]}" | grep -o '/[^ :]*\.so[^ :]*' | sort -u); do
	mkdir -p "$proxy$(dirname "$f")"
	cp -L "$fs$f" "$proxy$f"
done
for t in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
	ln -s xtables-nft-multi "$proxy/usr/sbin/$t"
done
image "registry.k8s.io/kube-proxy:$k8s" -- "$proxy"
images+=("registry.k8s.io/kube-proxy:$k8s")
docker save -o "$fs/kind/images/node-images.tar" "${images[@]}"
docker rmi "${images[@]}" >/dev/null

# 5. Into the engine.
say "importing the node image $tag"
tar -C "$fs" -cf - . | docker import \
	--change 'ENV container=docker' \
	--change 'ENTRYPOINT ["/usr/local/bin/entrypoint"]' - "$tag" >/dev/null
say "built $tag in $(($(date +%s) - start))s"
echo "$tag"
