#!/usr/bin/env bash
# Reproduces docs/speed.md's figures for the CPU class this runs on (issue #48: the "AMD EPYC Zen 1" section),
# printing the CPU class and the load first. Run from the checkout after `make build build-portable weights`:
#   scripts/cpu-class-figures.sh [ROUNDS]      (ROUNDS: repetitions of each peer comparison, default 3)
# Each comparison is interleaved in one run (ours and the peer's rounds alternating) and prints both the
# wall-time ratio and the CPU-time ratio; on a quiet host quote the wall-time one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
TUNED=${POSEKIT:-.build/release/posekit}
PORTABLE=${POSEKIT_PORTABLE:-.build-portable/release/posekit}
SHARED=${SHARED:-../shared}
MODELS="pose_detection pose_landmark_full palm_detection_full palm_detection_lite hand_landmark_full hand_landmark_lite"
run() { echo "+ $*"; env -u OPENBLAS_CORETYPE "$@"; }

echo "== $(date -u +%FT%TZ), load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$TUNED" info --build

echo "== 1. the kernels alone (thread CPU time) and the int8 study"
make --no-print-directory bench-ckernels BENCH_RUNS=15

echo "== 2. PoseNet MobileNet 0.75 at 513, 2 threads, against ONNX Runtime (tuned, then portable)"
for round in $(seq "$ROUNDS"); do
    run "$TUNED" bench model --models mobilenet075 --sizes 513 --threads 2 --compare-ort --runs 60
    [ -x "$PORTABLE" ] && run "$PORTABLE" bench model --models mobilenet075 --sizes 513 --threads 2 --compare-ort --runs 60
done

echo "== 3. int8 against fp32, 513, 2 and 1 threads, interleaved"
run "$TUNED" bench model --models mobilenet075 --sizes 513 --threads 2 --precision fp32 int8 --runs 30
run "$TUNED" bench model --models mobilenet075 --sizes 513 --threads 1 --precision fp32 int8 --runs 20

echo "== 4. COCO AP, fp32 and int8, images and images-val"
for set in images images-val; do
    for precision in fp32 int8; do
        echo "+ eval $set $precision"
        "$TUNED" eval --precision "$precision" --input-size 513 --threads 1 \
            --ground-truth "$SHARED/media/$set/ground_truth.json" --json "$SHARED"/media/"$set"/*.ppm \
            | python3 -c 'import json, sys; d = json.load(sys.stdin); print("AP", d["AP"], d["precision"], d["images"], "images")'
    done
done

echo "== 5. the six MediaPipe graphs against the TFLite runtime (XNNPACK), 1 thread"
for round in $(seq "$ROUNDS"); do
    for model in $MODELS; do
        run "$TUNED" bench model --models "Weights/$model.pkw" --threads 1 --compare-tflite --runs 30
    done
done
echo "== done, load: $(cut -d' ' -f1-3 /proc/loadavg)"
