#!/usr/bin/env bash
# Starts or stops a Docker engine of opcert's own for kind clusters on
# this machine (make e2e-kind), with runcwrap as its default runtime:
#
#   eval "$(hack/kind/dockerd.sh start)"   # prints export DOCKER_HOST=...
#   hack/kind/dockerd.sh stop
#
# The engine's state (its images: the node image, built once) is kept in
# opcert's cache directory; its socket, pid file and runtime state live in
# a directory under /run that stop removes. It adds no iptables rule and
# no docker0 bridge (kind makes its own network), and its containers' DNS
# answers only what the engine knows: a node never asks a resolver off this
# machine. Needs root and Debian's docker.io (dockerd, containerd, runc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
root=${OPCERT_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/opcert}
state=${OPCERT_DOCKERD_DIR:-/run/opcert-dockerd}
say() { echo "dockerd: $*" >&2; }

start() {
	if [ -S "$state/docker.sock" ] && DOCKER_HOST="unix://$state/docker.sock" docker info >/dev/null 2>&1; then
		say "already running ($state)"
		echo "export DOCKER_HOST=unix://$state/docker.sock"
		return
	fi
	mkdir -p "$state" "$root/kind/docker"
	(cd "$repo" && CGO_ENABLED=0 go build -o "$state/runcwrap" ./hack/kind/runcwrap)
	cat >"$state/daemon.json" <<-EOF
		{
		  "data-root": "$root/kind/docker",
		  "exec-root": "$state/exec",
		  "pidfile": "$state/dockerd.pid",
		  "hosts": ["unix://$state/docker.sock"],
		  "runtimes": {"opcert-runc": {"path": "$state/runcwrap"}},
		  "default-runtime": "opcert-runc",
		  "iptables": false,
		  "ip6tables": false,
		  "bridge": "none",
		  "dns": ["127.0.0.1"]
		}
	EOF
	setsid dockerd --config-file "$state/daemon.json" >"$state/dockerd.log" 2>&1 </dev/null &
	for _ in $(seq 120); do
		if DOCKER_HOST="unix://$state/docker.sock" docker info >/dev/null 2>&1; then
			say "started (log: $state/dockerd.log)"
			echo "export DOCKER_HOST=unix://$state/docker.sock"
			return
		fi
		sleep 0.5
	done
	tail -n 20 "$state/dockerd.log" >&2
	say "did not answer within 60s"
	stop
	exit 1
}

stop() {
	[ -d "$state" ] || return 0
	if [ -f "$state/dockerd.pid" ]; then
		pid=$(cat "$state/dockerd.pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 60); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	# What a killed engine may leave: its containerd, its shims, the
	# mounts of its containers' layers and namespaces.
	pkill -9 -f "containerd --config $state/exec" 2>/dev/null || true
	pkill -9 -f "containerd-shim.*$state/exec" 2>/dev/null || true
	{ grep -E " ($state|$root/kind/docker)/" /proc/mounts || true; } | cut -d' ' -f2 | sort -r | while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done
	rm -rf "$state"
	say "stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
