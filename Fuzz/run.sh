#!/usr/bin/env bash
# Builds the libFuzzer harnesses and runs each for SECONDS (default 600) at low priority.
#   Fuzz/run.sh [SECONDS] [TARGET...]   (make fuzz: 600 s each; make fuzz-smoke: 20 s each; JOBS=N builds with -j N;
#                                        PARALLEL=1 runs two at a time; default: every target)
# Targets: FuzzPNM, FuzzY4M (frame readers), FuzzCoreML (protobuf / Core ML model reader),
# FuzzWindow (window files, .npy and JSON), FuzzPoseLines (pose JSON Lines), FuzzNumPy (.npy).
# Seeds are generated here from ../shared (never committed) plus hand-made edge cases
# (make_seeds.py); libFuzzer grows corpus-NAME/ across runs. Crashes land in artifacts/.
set -euo pipefail
cd "$(dirname "$0")"
SECONDS_EACH=${1:-600}
shift || true
SHARED=${POSEKIT_SHARED:-$(cd .. && cd .. && pwd)/shared}
KINDS="pnm y4m coreml window poselines numpy"
for kind in $KINDS; do mkdir -p seeds-$kind corpus-$kind; done
mkdir -p artifacts logs

swift build -c release --sanitize=fuzzer ${JOBS:+-j $JOBS} >logs/build.log 2>&1 || { cat logs/build.log; exit 1; }

# Hand-made seeds: the header variants the parsers must handle.
printf 'P6\n2 1\n255\n\xff\x00\x00\x00\xff\x00' > seeds-pnm/p6.ppm
printf 'P5 # c\n2 2 # c\n65535\n\x01\x02\x03\x04\x05\x06\x07\x08' > seeds-pnm/p5-16.pgm
printf 'P3\n# comment\n2 1\n7\n7 0 0 0 7 # x\n0\n' > seeds-pnm/p3.ppm
printf 'P2\n2 2\n15\n0 5\n10 15\n' > seeds-pnm/p2.pgm
printf 'P6\n1 1\n255\n\x01\x02\x03P6\n1 1\n255\n\x04\x05\x06' > seeds-pnm/two.ppm
printf 'YUV4MPEG2 W2 H2 F30000:1001 Ip A0:0 C420jpeg XYSCSS=420JPEG\nFRAME\n\x10\x20\x30\x40\x80\x80FRAME Ixyz\n\x10\x20\x30\x40\x80\x80' > seeds-y4m/420.y4m
printf 'YUV4MPEG2 W2 H1 F25:1 C444 XCOLORRANGE=FULL\nFRAME\n\x10\x20\x80\x80\x80\x80' > seeds-y4m/444.y4m
printf 'YUV4MPEG2 W2 H2 F25:1 Cmono\nFRAME\n\x10\x20\x30\x40' > seeds-y4m/mono.y4m
printf 'YUV4MPEG2 W2 H1 F25:1 C422p10\nFRAME\n\x10\x01\x20\x01\x00\x02\x00\x02' > seeds-y4m/422p10.y4m

# Seeds from real video: tiny frames in every chroma format and PPM/PGM variants.
clip=$(ls "$SHARED"/media/videos/*.mp4 2>/dev/null | head -1 || true)
if [ -n "$clip" ] && command -v ffmpeg >/dev/null; then
  for fmt in yuv420p yuvj420p yuv422p yuv444p gray yuv420p10le yuv444p16le; do
    ffmpeg -v error -y -i "$clip" -frames:v 2 -vf scale=24:16 -pix_fmt $fmt -f yuv4mpegpipe -strict -1 seeds-y4m/real-$fmt.y4m || true
  done
  ffmpeg -v error -y -i "$clip" -frames:v 2 -vf scale=16:12 -pix_fmt rgb24 -f image2pipe -c:v ppm seeds-pnm/real-rgb.ppm
  ffmpeg -v error -y -i "$clip" -frames:v 1 -vf scale=16:12 -pix_fmt gray16be -f image2pipe -c:v pgm seeds-pnm/real-gray16.pgm
fi

# The Core ML, window, pose-line and .npy seeds: hand-made, then real windows from ../shared.
python3 make_seeds.py .
for npy in "$SHARED"/reference/createml/*/zeros.npy "$SHARED"/reference/createml/ExerciseClassifier/lunges_02__s0160.npy; do
  [ -f "$npy" ] && cp "$npy" "seeds-window/$(basename "$(dirname "$npy")")-$(basename "$npy")" && cp "$npy" seeds-numpy/ || true
done

run() {  # name corpus seeds
  echo "== $1 for ${SECONDS_EACH}s"
  local status=0
  nice -n 19 .build/release/$1 corpus-$2 seeds-$2 -max_total_time=$SECONDS_EACH -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix=artifacts/$1- -print_final_stats=1 >logs/$1.log 2>&1 || status=$?
  grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)|ERROR|SUMMARY|Test unit written" logs/$1.log || true
  [ $status = 0 ] || echo "$1 FAILED (exit $status): see Fuzz/logs/$1.log and Fuzz/artifacts/"
  return $status
}
declare -A KIND=([FuzzPNM]=pnm [FuzzY4M]=y4m [FuzzCoreML]=coreml [FuzzWindow]=window [FuzzPoseLines]=poselines [FuzzNumPy]=numpy)
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(FuzzPNM FuzzY4M FuzzCoreML FuzzWindow FuzzPoseLines FuzzNumPy)
failed=0
if [ "${PARALLEL:-0}" = 1 ]; then   # two at a time
  for ((i = 0; i < ${#TARGETS[@]}; i += 2)); do
    run "${TARGETS[i]}" "${KIND[${TARGETS[i]}]}" & a=$!
    b=""
    if [ $((i + 1)) -lt ${#TARGETS[@]} ]; then run "${TARGETS[i+1]}" "${KIND[${TARGETS[i+1]}]}" & b=$!; fi
    wait $a || failed=1
    [ -z "$b" ] || wait $b || failed=1
  done
else
  for target in "${TARGETS[@]}"; do run "$target" "${KIND[$target]}" || failed=1; done
fi
exit $failed
