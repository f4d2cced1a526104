#!/usr/bin/env bash
# hack/shards.sh COUNT OUT OPCERT COMMAND [ARG...]: plays an opcert command
# (run, selftest, fuzz, perturb) as COUNT shards side by side on this
# machine, each to OUT.shards/<index> with its output in
# OUT.shards/<index>.log, then merges them into OUT (opcert merge) and
# exits with the merge's status; COUNT 1 runs the command as it is. What
# make selftest SHARDS=2 and make perturb SHARDS=2 do, and the figures of
# docs/guides/sharding.md.
set -euo pipefail
count=$1 out=$2 opcert=$3
shift 3
if [ "$count" -le 1 ]; then
	exec "$opcert" "$@" --out "$out"
fi
dir=$out.shards
rm -rf "$dir"
mkdir -p "$dir"
pids=() dirs=()
start=$(date +%s)
for i in $(seq 1 "$count"); do
	# Each shard's exit status and wall time, in seconds, to its .status.
	(
		t=$(date +%s)
		status=0
		"$opcert" "$@" --shard "$i/$count" --out "$dir/$i" >"$dir/$i.log" 2>&1 || status=$?
		echo "$status $(($(date +%s) - t))" >"$dir/$i.status"
	) &
	pids+=($!) dirs+=("$dir/$i")
done
# A stop signal reaches the shards' opcerts (children of the subshells).
trap 'for p in "${pids[@]}"; do pkill -TERM -P "$p"; done' INT TERM
wait "${pids[@]}" || true
failed=0
for i in $(seq 1 "$count"); do
	read -r status took <"$dir/$i.status" || { status=128 took=?; }
	echo "== shard $i/$count: exit $status in ${took}s"
	# A shard's own summary; its progress lines stay in its log.
	grep -v '^\[' "$dir/$i.log" | tail -n 8
	# A shard of a failing fuzz campaign or exploration exits 1: the merge
	# says what failed. Anything else is the shard's own trouble.
	case $status in 0 | 1) ;; *) failed=1 ;; esac
done
if [ "$failed" -ne 0 ]; then
	echo "shards: a shard could not complete (its log is in $dir); not merged" >&2
	exit 3
fi
status=0
"$opcert" merge "${dirs[@]}" --out "$out" || status=$?
echo "shards: $count shards in $(($(date +%s) - start))s, merged into $out (the shards' directories and logs are in $dir)"
exit "$status"
