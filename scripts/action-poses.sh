#!/usr/bin/env bash
# Runs our own PoseNet (`posekit pose`) over every clip in labels.json, trimmed and scaled exactly as
# labels.json's ffmpeg command says, into OUT/<clip>.jsonl: the real-clip training data of
# `make train-actions`. Derived from ../shared media, so OUT is git-ignored (never committed).
#   scripts/action-poses.sh SHARED OUT [posekit pose options...]
# LABELS names another labels file of the same form (default SHARED/media/videos/labels.json; its
# `original` videos are still read from SHARED/media/videos).
set -euo pipefail
shared=$1; out=$2; shift 2
labels=${LABELS:-$shared/media/videos/labels.json}
posekit=${POSEKIT:-.build/release/posekit}
mkdir -p "$out"
python3 - "$labels" <<'PY' | while IFS=$'\t' read -r name original start duration; do
import json, sys
for clip in json.load(open(sys.argv[1])):
    stem = clip["file"].rsplit(".", 1)[0]
    print("\t".join([stem, clip["original"], str(clip["trim"]["start_s"]), str(clip["trim"]["duration_s"])]))
PY
  echo "action-poses: $name"
  ffmpeg -nostdin -loglevel error -ss "$start" -i "$shared/media/videos/$original" -t "$duration" -an \
    -vf "scale='min(640,iw)':-2:flags=lanczos,format=yuv420p" -pix_fmt yuv420p -f yuv4mpegpipe - \
    | "$posekit" pose "$@" - > "$out/$name.jsonl.tmp"
  mv "$out/$name.jsonl.tmp" "$out/$name.jsonl"
done
