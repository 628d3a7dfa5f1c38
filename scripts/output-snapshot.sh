#!/usr/bin/env bash
# Records what the frame commands write (pose, pose --hands, pose --model blazepose, hands,
# actions, actions --classifier, actions --poses, overlays) on shared images and the first frames
# of shared clips, so two builds can be compared byte for byte after a refactoring:
#
#   scripts/output-snapshot.sh OLD_POSEKIT .cache/snapshot-old
#   scripts/output-snapshot.sh .build/release/posekit .cache/snapshot-new
#   diff -r .cache/snapshot-old .cache/snapshot-new && echo identical
#
# Each case writes CASE.out (stdout), CASE.overlay (when it has one) and CASE.status (the exit
# status). stderr is kept as CASE.err but is not output (progress and messages may change).
# Clips are cut once (ffmpeg, the first FRAMES frames as Y4M) into .cache/snapshot-clips.
#   SHARED (default ../shared), FRAMES (default 90), THREADS (default 2).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 POSEKIT OUT_DIR" >&2; exit 2; }
posekit=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2
shared=$(cd "${SHARED:-$root/../shared}" && pwd)
frames=${FRAMES:-90}
threads=${THREADS:-2}
clips=$root/.cache/snapshot-clips
mkdir -p "$out" "$clips"
out=$(cd "$out" && pwd)

# The first frames of two exercise clips as Y4M (made once; both builds read the same bytes).
for pair in jumping_jacks_02:409416541_Independent-Study__Jumping_Jacks squats_01:yuyoujiang_test_video__squat; do
  name=${pair%%:*} src=$shared/media/videos/${pair#*:}.mp4
  [ -f "$src" ] || { echo "no clip $src" >&2; exit 1; }
  [ -s "$clips/$name.y4m" ] || ffmpeg -loglevel error -y -i "$src" -frames:v "$frames" -an -pix_fmt yuv420p \
    -f yuv4mpegpipe "$clips/$name.y4m" || exit 1
done
images=$shared/media/images
hands=$shared/media/hands
clip=$clips/jumping_jacks_02.y4m
squats=$clips/squats_01.y4m
classifier=$shared/weights/createml-exercise-classifier/ExerciseClassifier.mlmodel

# run NAME ARGS...: stdout to NAME.out, the exit status to NAME.status.
run() {
  local name=$1; shift
  (cd "$out" && "$posekit" "$@" > "$name.out" 2> "$name.err"; echo $? > "$name.status")
  echo "$name: exit $(cat "$out/$name.status")"
}

body_images=("$images/coco_000000000785.ppm" "$images/mpii_004645041.jpg" "$images/h36m_S7_Greeting.55011271_000396.ppm")
run pose-images pose --threads "$threads" "${body_images[@]}"
run pose-images-normalized pose --threads "$threads" --coordinates normalized "${body_images[@]}"
run pose-coco pose --threads "$threads" --format coco --ground-truth "$images/ground_truth.json" "$images/coco_000000000785.ppm" "$images/mpii_004645041.ppm"
run pose-accurate pose --threads "$threads" --accurate "$images/coco_000000000785.ppm"
run pose-hands-images pose --threads "$threads" --hands "${body_images[@]}"
run pose-blazepose-images pose --threads "$threads" --model blazepose "${body_images[@]}"
run pose-video pose --threads "$threads" --overlay pose-video.overlay.y4m --overlay-ids "$clip"
run pose-video-images pose --threads "$threads" --video --fps 25 "${body_images[@]}"
run pose-hands-video pose --threads "$threads" --hands --overlay pose-hands-video.overlay.y4m "$clip"
run pose-blazepose-video pose --threads "$threads" --model blazepose "$clip"
run hands-images hands --threads "$threads" "$hands/freihand_00000355.jpg" "$hands/panoptic_005880453_01_l.ppm" "$images/mpii_004645041.ppm"
run hands-palms hands --threads "$threads" --hand-sources palms --hand-model lite "$hands/freihand_00017620.ppm"
run hands-video hands --threads "$threads" --gestures --overlay hands-video.overlay.y4m "$clip"
run actions actions --threads "$threads" "$squats"
run actions-overlay actions --threads "$threads" --overlay actions-overlay.overlay.y4m "$clip"
run actions-poses actions --poses pose-video.out
run actions-classifier actions --threads "$threads" --classifier "$classifier" "$squats"
run actions-classifier-poses actions --classifier "$classifier" --poses pose-video.out
run actions-blazepose actions --threads "$threads" --model blazepose "$clip"
