#!/usr/bin/env bash
# The suite under load: `make test` N times in a row (default 3) while `stress --cpu 4` keeps the
# cores busy (2 cores: three runnable stress workers per core beside the suite), each run's wall
# time and result printed. A suite that decided by a clock or a sleep flakes here; this one must
# pass every run (docs/building.md "Tests and time").
#   scripts/stress-test.sh [RUNS] [STRESS_WORKERS]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
workers=${2:-4}
command -v stress >/dev/null || { echo "stress-test: stress is not installed (apt-get install stress)" >&2; exit 1; }
make weights >/dev/null   # build and weights first, outside the timed runs
stress --cpu "$workers" >/dev/null 2>&1 &
stressor=$!
trap 'kill "$stressor" 2>/dev/null; wait "$stressor" 2>/dev/null' EXIT
failed=0
for run in $(seq 1 "$runs"); do
  start=$(date +%s)
  if make test > ".cache/stress-test-$run.log" 2>&1; then result=passed; else result=FAILED; failed=1; fi
  echo "stress-test: run $run of $runs $result in $(( $(date +%s) - start )) s (load $(cut -d' ' -f1-3 /proc/loadavg); log .cache/stress-test-$run.log)"
done
exit $failed
