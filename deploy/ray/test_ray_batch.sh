#!/usr/bin/env bash
# Runs deploy/ray/posekit_ray.py on a real local Ray cluster (`make test-ray`; .ci/run runs it after
# `make test`). It installs Ray into a virtual environment, starts a private head with 2 CPUs, trims
# the 5 shared clips to 3 s (labels.json's ffmpeg conversion) and checks:
#   - 4 shards, one task's posekit killed (SIGKILL, by the pid the task reports) mid-input: the
#     retried shard resumes and completes, the union of the outputs is byte for byte one unsharded
#     `posekit pose` run, and no temporary file is left;
#   - `--command actions` in 2 shards is byte for byte one unsharded `posekit actions` run;
#   - bad input: posekit missing on the workers, an input list changed between tasks, an output
#     directory the workers do not see, each fail naming the cause, and so does a posekit option
#     posekit rejects (not retried); an input failing every retry is reported while the other
#     shards finish.
# The cluster is stopped on every exit (its process group, by id).
#
#   deploy/ray/test_ray_batch.sh                 # the test (about 3 minutes on 2 cores)
#   deploy/ray/test_ray_batch.sh --throughput    # also frames/s: posekit alone, 1 shard x 2 CPUs, 2 shards x 1 CPU
#
# POSEKIT (default: this checkout's .build/release/posekit, `make weights` first), SHARED (../shared)
# and RAY_VENV (.cache/ray-venv, created when missing) can be set.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=${SHARED:-$root/../shared}
posekit=${POSEKIT:-$root/.build/release/posekit}
venv=${RAY_VENV:-$root/.cache/ray-venv}
driver=$root/deploy/ray/posekit_ray.py
throughput=false
[ "${1:-}" = --throughput ] && throughput=true

[ -x "$posekit" ] || { echo "test-ray: no posekit at $posekit (run make weights, or set POSEKIT)" >&2; exit 2; }
work=$(mktemp -d /tmp/posekit-ray-test.XXXXXX)
ray_group=""
passed=0 failed=0 skipped=0

# The processes under $1, by parent id: Ray starts its workers (and so their posekit) in sessions of their own.
descendants() {
  ps -eo pid=,ppid= | awk -v root="$1" '{ parent[$1] = $2 }
    END { for (p in parent) { q = p; while ((q in parent) && q != root && q > 1) q = parent[q]; if (q == root) print p } }'
}
# Stops the cluster, by ids only (`ray stop` would stop every Ray on the machine): stops (SIGSTOP)
# its process group and every process under it until no new one appears (a stopped raylet starts no
# more workers), then kills them all. It holds no data worth a graceful shutdown.
stop_cluster() {
  [ -n "$ray_group" ] || return 0
  local pids="" now
  while now=$(descendants "$ray_group" | sort -n | tr '\n' ' '); [ "$now" != "$pids" ]; do
    pids=$now
    kill -STOP -- "-$ray_group" $pids 2>/dev/null || true
  done
  kill -KILL -- "-$ray_group" $pids 2>/dev/null || true
  wait "$ray_group" 2>/dev/null || true
  ray_group=""
}
# On any exit: the drivers still running in the background, then the cluster, then the files.
cleanup() {
  local job
  for job in $(jobs -p); do [ "$job" = "$ray_group" ] || kill "$job" $(descendants "$job") 2>/dev/null || true; done
  stop_cluster
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "test-ray: ok: $1"; passed=$((passed + 1)); }
fail() { echo "test-ray: FAILED: $1" >&2; failed=$((failed + 1)); }
# check NAME COMMAND...: runs the command as a condition.
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# Waits up to $2 s for the glob $1 to match; fails (returns 1) if the background job $3 ended first.
wait_for() {
  local deadline=$((SECONDS + $2))
  until compgen -G "$1" >/dev/null; do
    if [ $SECONDS -ge $deadline ] || ! kill -0 "$3" 2>/dev/null; then return 1; fi
    sleep 0.1
  done
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Runs the driver from $work against the test cluster; more options override these.
drive() { (cd "$work" && "$venv/bin/python" "$driver" --address "$address" --posekit "$posekit" "$@"); }
# Leftovers of a run in DIR: hidden files (temporary outputs, the driver's run directory) and .partial files.
leftovers() { find "$1" -mindepth 1 \( -name '.*' -o -name '*.partial' \) -print; }
frames() { cat "$1"/*.jsonl | wc -l; }

start=$SECONDS
echo "test-ray: Ray into $venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$root/deploy/ray/requirements.txt"

echo "test-ray: the shared clips, 3 s each, into $work/clips"
mkdir -p "$work/clips"
python3 - "$shared/media/videos/labels.json" <<'PY' > "$work/clips.tsv"
import json, sys
for clip in json.load(open(sys.argv[1])):
    print(f"{clip['file']}\t{clip['original']}\t{clip['trim']['start_s']}")
PY
while IFS=$'\t' read -r file original start_s; do
  ffmpeg -nostdin -loglevel error -ss "$start_s" -i "$shared/media/videos/$original" -t 3 -an \
    -vf "scale='min(640,iw)':-2:flags=lanczos,format=yuv420p" -pix_fmt yuv420p -f yuv4mpegpipe "$work/clips/$file"
  echo "clips/$file" >> "$work/list.txt"
done < "$work/clips.tsv"
[ "$(wc -l < "$work/list.txt")" -eq 5 ] || { echo "test-ray: expected 5 clips in labels.json" >&2; exit 1; }
ffmpeg -nostdin -loglevel error -i "$work/clips/lunges_02.y4m" -frames:v 5 -f yuv4mpegpipe "$work/clips/tiny_a.y4m"
cp "$work/clips/tiny_a.y4m" "$work/clips/tiny_b.y4m"
echo "not a video" > "$work/clips/broken.y4m"

echo "test-ray: a local head with 2 CPUs in $work/ray"
port=$(free_port)
address=127.0.0.1:$port
# setsid: the cluster is one process group, stopped by its id (`ray stop` would stop every Ray on the machine).
RAY_USAGE_STATS_ENABLED=0 setsid "$venv/bin/ray" start --head --block --num-cpus 2 --port "$port" \
  --dashboard-agent-listen-port "$(free_port)" \
  --include-dashboard=false --disable-usage-stats --temp-dir "$work/ray" > "$work/ray-start.log" 2>&1 &
ray_group=$!
for _ in $(seq 120); do
  grep -qs "Ray runtime started" "$work/ray-start.log" && break
  kill -0 "$ray_group" 2>/dev/null || { tail -20 "$work/ray-start.log" >&2; echo "test-ray: ray start failed" >&2; exit 1; }
  sleep 0.5
done
grep -q "Ray runtime started" "$work/ray-start.log" || { echo "test-ray: the cluster did not start in 60 s" >&2; exit 1; }
[ "$(ps -o pgid= -p "$ray_group" | tr -d ' ')" = "$ray_group" ] || { echo "test-ray: ray start is not its own process group" >&2; exit 1; }
echo "test-ray: cluster at $address ($((SECONDS - start)) s so far)"

t0=$SECONDS
(cd "$work" && "$posekit" pose --inputs-from list.txt --output-dir reference)
echo "test-ray: one unsharded run: $(frames "$work/reference") frames in $((SECONDS - t0)) s"

# 4 shards; shard 0 has inputs 0 and 4: once input 0 is out, kill its posekit during input 4.
t0=$SECONDS
drive --inputs-from list.txt --output-dir sharded --shards 4 > "$work/sharded.log" 2>&1 &
run=$!
first="$work/sharded/$(basename "$(head -n 1 "$work/list.txt")" .y4m).jsonl"
killed=false temporary=false
if wait_for "$first" 300 $run; then
  sleep 1
  compgen -G "$work/sharded/.*.tmp" >/dev/null && temporary=true
  before=$(stat -c %i:%Y "$first")
  read -r pid host < "$(compgen -G "$work/sharded/.posekit-ray-*/shard-0.attempt-1.pid")"
  echo "test-ray: killing shard 0's posekit, pid $pid on $host"
  [ "$(readlink -f "/proc/$pid/exe")" = "$(readlink -f "$posekit")" ] && kill -KILL "$pid" && killed=true || true
fi
rc=0; wait $run || rc=$?
cat "$work/sharded.log"
echo "test-ray: 4 shards with a kill: $((SECONDS - t0)) s"
check "shard 0's posekit was killed mid-input (the pid its task reported is posekit's)" $killed
check "the kill left a temporary output behind (for the driver to remove)" $temporary
check "the driver exits 0" [ $rc -eq 0 ]
check "the summary: 4 done, 0 failed, 1 retried" grep -q "4 shard(s) done, 0 failed, 1 retried" "$work/sharded.log"
check "shard 0 completes on its second attempt" grep -q "shard 0/4 done on .* (attempt 2," "$work/sharded.log"
check "the retry resumed: shard 0's first output was not written again" [ "$(stat -c %i:%Y "$first" 2>&1)" = "${before:-}" ]
check "the union of the shards is byte for byte the unsharded run" diff -r "$work/reference" "$work/sharded"
check "no temporary file, .partial file or run directory is left" [ -z "$(leftovers "$work/sharded")" ]

head -n 2 "$work/list.txt" > "$work/two.txt"
(cd "$work" && "$posekit" actions --inputs-from two.txt --output-dir actions-reference)
rc=0; drive --command actions --inputs-from two.txt --output-dir actions --shards 2 > "$work/actions.log" 2>&1 || rc=$?
check "actions in 2 shards: the driver exits 0" [ $rc -eq 0 ]
check "actions in 2 shards: byte for byte one unsharded run" diff -r "$work/actions-reference" "$work/actions"

# expect_failure NAME MESSAGE DRIVER-OPTIONS...: the driver exits 1 and says MESSAGE.
expect_failure() {
  local name=$1 message=$2 rc=0; shift 2
  drive "$@" > "$work/$name.log" 2>&1 || rc=$?
  if [ $rc -eq 1 ] && grep -qF -- "$message" "$work/$name.log"; then pass "$name: exit 1, '$message'"
  else cat "$work/$name.log" >&2; fail "$name: exit $rc, expected 1 and '$message'"; fi
}
printf '%s\n' clips/tiny_a.y4m clips/tiny_b.y4m > "$work/tiny.txt"
expect_failure missing-posekit "posekit not found on" --posekit "$work/no-such-dir/posekit" \
  --inputs-from tiny.txt --output-dir missing --shards 2
expect_failure posekit-option "posekit rejected the command on $(hostname): Error: Unknown option '--no-such-option'" \
  --inputs-from tiny.txt --output-dir rejected --shards 2 -- --no-such-option
check "posekit-option: not retried (a usage error fails the same way again)" grep -q "0 retried" "$work/posekit-option.log"

printf '%s\n' clips/tiny_a.y4m clips/broken.y4m clips/tiny_b.y4m > "$work/broken.txt"
expect_failure failing-input "failed: clips/broken.y4m: not an image or video PoseKit reads" \
  --inputs-from broken.txt --output-dir broken --shards 3 --max-retries 2
check "failing-input: the others finish: 2 done, 1 failed after 3 attempts" \
  grep -q "2 shard(s) done, 1 failed, 1 retried (5 attempt(s)" "$work/failing-input.log"
check "failing-input: the other inputs are written" test -s "$work/broken/tiny_a.jsonl" -a -s "$work/broken/tiny_b.jsonl"

# Both shards need the 2 CPUs, so they run one after the other: the list changes during the first.
sed -n '3,4p' "$work/list.txt" > "$work/changing.txt"
drive --inputs-from changing.txt --output-dir changing --shards 2 --cpus-per-task 2 > "$work/changing.log" 2>&1 &
run=$!
wait_for "$work/changing/.posekit-ray-*/shard-*.attempt-1.pid" 120 $run && echo clips/tiny_a.y4m >> "$work/changing.txt"
rc=0; wait $run || rc=$?
if [ $rc -eq 1 ] && grep -q "changed after the driver read it" "$work/changing.log" && grep -q "1 shard(s) done, 1 failed" "$work/changing.log"; then
  pass "changing-list: exit 1, the task after the change says the list changed after the driver read it"
else cat "$work/changing.log" >&2; fail "changing-list: exit $rc, expected 1 and 'changed after the driver read it'"; fi

# The driver writes its output directory on a tmpfs mounted in its own mount namespace: no worker sees it.
mkdir -p "$work/private"
if unshare -m true 2>/dev/null; then
  rc=0
  unshare -m sh -c 'mount -t tmpfs tmpfs "$1" && shift && cd "$1" && shift && exec "$@"' sh "$work/private" "$work" \
    "$venv/bin/python" "$driver" --address "$address" --posekit "$posekit" --inputs-from tiny.txt \
    --output-dir private/out --shards 2 > "$work/unshared.log" 2>&1 || rc=$?
  if [ $rc -eq 1 ] && grep -q "private/out is not shared with" "$work/unshared.log"; then
    pass "unshared-output: exit 1, 'the output directory ... is not shared with HOST'"
  else cat "$work/unshared.log" >&2; fail "unshared-output: exit $rc, expected 1 and 'is not shared with'"; fi
else
  echo "test-ray: skipped unshared-output: unshare -m is not permitted here"; skipped=$((skipped + 1))
fi

# Frames per second of one unsharded posekit (2 threads) and of the driver with 1 shard of 2 CPUs and
# 2 shards of 1 CPU (its time: from submitting the tasks to the last one done, worker start and model
# load included), interleaved, twice.
rate() { python3 -c 'import sys; n, s = int(sys.argv[2]), float(sys.argv[3]); print(f"test-ray: throughput, {sys.argv[1]}: {n} frames in {s:.1f} s, {n / s:.1f} frames/s")' "$@"; }
if $throughput; then
  for round in 1 2; do
    rm -rf "$work/throughput"
    t0=$(date +%s.%N)
    (cd "$work" && "$posekit" pose --threads 2 --inputs-from list.txt --output-dir throughput)
    rate "posekit alone, 2 threads" "$(frames "$work/throughput")" "$(python3 -c "import time; print(time.time() - $t0)")"
    for shape in "1 2" "2 1"; do
      read -r shards cpus <<< "$shape"
      rm -rf "$work/throughput"
      drive --inputs-from list.txt --output-dir throughput --shards "$shards" --cpus-per-task "$cpus" > "$work/throughput.log" 2>&1
      rate "Ray, $shards shard(s) x $cpus CPU(s)" "$(frames "$work/throughput")" \
        "$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' "$work/throughput.log" | tail -n 1)"
    done
  done
fi

stop_cluster
echo "test-ray: $((SECONDS - start)) s in all"
echo "test-ray: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
