#!/usr/bin/env bash
# One action-classifier window on one core, interleaved: `posekit bench actions` of each binary
# given, then ONNX Runtime on each Create ML model (../shared/tools/peers/createml_ort_peer.py: the
# whole Core ML network as one ONNX graph, all optimizations on, 1 thread), ROUNDS times, so every
# figure sees the same phases of a shared host. Prints each round's medians (ms) and, per binary
# and model, the median over rounds of ours / ONNX Runtime.
#   scripts/action-classifier-speed.sh [-r ROUNDS] [-n RUNS] POSEKIT [POSEKIT_BEFORE ...]
# The peer needs coremltools (to read the .mlmodel) beside onnxruntime: installed on first use
# into .cache/createml-peer (a venv that sees the system's numpy, onnx and onnxruntime).
set -euo pipefail
rounds=5 runs=30
while getopts "r:n:" opt; do case $opt in r) rounds=$OPTARG ;; n) runs=$OPTARG ;; *) exit 2 ;; esac; done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-r ROUNDS] [-n RUNS] POSEKIT [POSEKIT_BEFORE ...]" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${POSEKIT_SHARED:-$root/../shared}
venv="$root/.cache/createml-peer"
if ! "$venv/bin/python" -c "import coremltools, onnxruntime" 2>/dev/null; then
  python3 -m venv --system-site-packages "$venv"
  "$venv/bin/pip" install -q coremltools==9.0
fi
models=("$shared/weights/createml-exercise-classifier/ExerciseClassifier.mlmodel"
        "$shared/weights/createml-player-action-classifier/PlayerActionClassifier.mlmodel")
peer=$shared/tools/peers/createml_ort_peer.py
results=$(mktemp)
trap 'rm -f "$results"' EXIT
echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); load: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$rounds"); do
  for binary in "$@"; do
    # "  ExerciseClassifier.mlmodel   12.3 ms median ..." lines: the model's file name and its median.
    env -u OPENBLAS_CORETYPE "$binary" bench actions --runs "$runs" --classifiers "${models[@]}" \
      | awk -v b="$binary" -v r="$round" '/\.mlmodel/ { for (i = 1; i <= NF; i++) if ($(i+1) == "ms") { print r, b, $1, $i; break } }' >> "$results"
  done
  for model in "${models[@]}"; do
    ms=$(env -u OPENBLAS_CORETYPE "$venv/bin/python" "$peer" "$model" --threads 1 --runs "$runs" 2>/dev/null \
      | sed -n 's/.*median_ms=\([0-9.]*\).*/\1/p')
    echo "$round ort $(basename "$model") $ms" >> "$results"
  done
  echo "round $round (load $(cut -d' ' -f1 /proc/loadavg)):"
  grep "^$round " "$results" | sed 's/^[0-9]* /  /'
done
python3 - "$results" "$@" <<'EOF'
import sys, statistics, collections
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
by = collections.defaultdict(dict)
for r, who, model, ms in rows:
    by[(who, model.split('/')[-1])][r] = float(ms)
for binary in sys.argv[2:]:
    for model in sorted({m for (w, m) in by if w == binary}):
        ours, peer = by[(binary, model)], by[("ort", model)]
        ratios = [ours[r] / peer[r] for r in ours if r in peer and peer[r] > 0]
        print(f"{binary} {model}: median {statistics.median(ours.values()):.2f} ms, ONNX Runtime {statistics.median(peer.values()):.2f} ms, "
              f"ratio per round {', '.join(f'{x:.2f}' for x in ratios)}, median {statistics.median(ratios):.2f}")
EOF
