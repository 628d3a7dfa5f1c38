#!/usr/bin/env bash
# Multi-person clips with known identities, made with ffmpeg from the shared single-person clips,
# for the identity tests (Tests/AppTests/IdentityTests.swift) and scripts/identity-report.py:
#   side_by_side.y4m  jumping_jacks_02 | lunges_02 (hstack, 1280x360, 30 frames/s, 200 frames):
#                     two people, each in their own half of the frame.
#   walk_past.y4m     squats_01 (640x362, 150 frames) with a cut-out of jumping_jacks_01 crossing it
#                     from left to right between 1 s and 4 s: a person who enters, walks in front
#                     of the other and leaves.
# OUT/clips.tsv lists each clip with its known people for identity-report.py (--regions, --moving).
# Derived from ../shared media, so OUT must stay out of the repository.
#   scripts/identity-clips.sh SHARED OUT
set -euo pipefail
shared=$1; out=$2
videos=$shared/media/videos
mkdir -p "$out"
ff() { ffmpeg -nostdin -loglevel error -y "$@"; }

# Each source trimmed as labels.json trims it.
ff -ss 2 -i "$videos/409416541_Independent-Study__Jumping_Jacks.mp4" -ss 7 -i "$videos/TomNotchYmk_lhpe3d-demo__lunges.mp4" \
  -filter_complex "[0:v]fps=30,scale=640:360,setsar=1[a];[1:v]fps=30,scale=640:360,setsar=1[b];[a][b]hstack=inputs=2,format=yuv420p" \
  -an -frames:v 200 -f yuv4mpegpipe "$out/side_by_side.y4m.tmp"
mv "$out/side_by_side.y4m.tmp" "$out/side_by_side.y4m"

# The walker: the jumping-jacks man cropped to his body (x 80..290, y 180..560 of the 406x720
# clip) at 300 px high (166 px wide), moving 270 px/s from x = -170 at 1 s; off screen before and after.
ff -i "$videos/yuyoujiang_test_video__squat.mp4" -i "$videos/ahmedlila_jumping-jacks-counter__3_Count_Jumping_Jacks.mp4" \
  -filter_complex "[0:v]fps=30,scale='min(640,iw)':-2:flags=lanczos,setsar=1[bg];[1:v]fps=30,scale=406:720,crop=210:380:80:180,scale=166:300,setsar=1[fg];[bg][fg]overlay=x='-170+(t-1)*270':y=62:eof_action=pass,format=yuv420p" \
  -an -frames:v 150 -f yuv4mpegpipe "$out/walk_past.y4m.tmp"
mv "$out/walk_past.y4m.tmp" "$out/walk_past.y4m"

# The walker's band over the 150 frames (t = 0 ... 149/30 s): x = -170 + (t - 1) 270, 166 px wide.
python3 - "$out" <<'PY'
import sys
out = sys.argv[1]
t_end = 149 / 30
x0, x_end = -170 - 270, -170 + (t_end - 1) * 270
rows = [("side_by_side.y4m", "left:0:0.5,right:0.5:1", ""),
        ("walk_past.y4m", "squatter:0.45:0.8", f"walker:{x0 / 640:.4f}:{(x0 + 166) / 640:.4f}:{(x_end + 166) / 640:.4f}")]
with open(f"{out}/clips.tsv", "w") as f:
    for row in rows:
        f.write("\t".join(row) + "\n")
PY
echo "identity-clips: wrote $out/side_by_side.y4m, $out/walk_past.y4m, $out/clips.tsv"
