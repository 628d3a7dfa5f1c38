#!/usr/bin/env bash
# docs/view.png: `posekit view` in headless Chromium on a clip made from a public-domain photograph
# (NASA's portrait of astronaut Eileen Collins, as scikit-image ships it: skimage.data.astronaut,
# "no known copyright restrictions, released into the public domain"). ../shared's clips cannot be
# shown in the repository: their licences are unknown or restrictive (../shared/media/PROVENANCE.md).
#   scripts/view-screenshot.sh [POSEKIT]
set -euo pipefail
cd "$(dirname "$0")/.."
POSEKIT=${1:-.build/release/posekit}
CACHE=.cache/view-screenshot
mkdir -p "$CACHE"
if [ ! -f "$CACHE/astronaut.png" ]; then
  # The photograph is in scikit-image's wheel (skimage/data/astronaut.png): fetched once, nothing installed.
  python3 -m pip download --quiet --no-deps --dest "$CACHE" scikit-image
  python3 - "$CACHE" <<'PY'
import glob, sys, zipfile
cache = sys.argv[1]
wheel = zipfile.ZipFile(sorted(glob.glob(f"{cache}/scikit_image-*.whl"))[-1])
open(f"{cache}/astronaut.png", "wb").write(wheel.read("skimage/data/astronaut.png"))
PY
fi
# 4 s at 30 frames/s: a slow zoom, so the frames move as a camera's would.
ffmpeg -nostdin -loglevel error -y -loop 1 -i "$CACHE/astronaut.png" -t 4 \
  -vf "scale=1024:1024,zoompan=z='1+0.0015*on':x='iw/2-(iw/zoom/2)':y='ih/2-(ih/zoom/2)':d=1:s=640x640:fps=30,format=yuv420p" \
  -f yuv4mpegpipe "$CACHE/astronaut.y4m"
scripts/view-browser-test.py --posekit "$POSEKIT" --screenshot docs/view.png --source "$CACHE/astronaut.y4m"
