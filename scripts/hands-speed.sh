#!/bin/sh
# Time per frame of PoseKit's hand pipeline against MediaPipe's own (mediapipe 0.10.14, the legacy
# `hands` solution, model_complexity 1, max 2 hands, video mode) on the same clip's frames,
# interleaved round by round, each pinned to one core (taskset -c 0; PoseKit with --threads 1).
# usage: scripts/hands-speed.sh [CLIP] [FRAMES] [ROUNDS]   (release build at .build-test/release/posekit;
#        MediaPipe from $MP_PYTHON, default python3: it needs mediapipe==0.10.14; see docs/hands.md "Speed")
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
clip=${1:-$here/../shared/media/videos/409416541_Independent-Study__Push_Up.mp4}
frames=${2:-200}
rounds=${3:-3}
posekit=${POSEKIT:-$here/.build-test/release/posekit}
python=${MP_PYTHON:-python3}
peer=$here/../shared/tools/peers/mediapipe_peer.py
ours="" theirs=""
i=0
while [ $i -lt "$rounds" ]; do
    o=$(taskset -c 0 "$posekit" bench hands "$clip" --frames "$frames" --threads 1)
    t=$(taskset -c 0 "$python" "$peer" time-hands "$clip" --frames "$frames" 2>/dev/null | tail -1)
    echo "posekit:   $o"
    echo "mediapipe: $t"
    ours="$ours $(echo "$o" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')"
    theirs="$theirs $(echo "$t" | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')"
    i=$((i + 1))
done
python3 - "$ours" "$theirs" <<'PY'
import statistics, sys
o = [float(v) for v in sys.argv[1].split()]; t = [float(v) for v in sys.argv[2].split()]
print(f"median of rounds: posekit {statistics.median(o):.2f} ms, mediapipe {statistics.median(t):.2f} ms, "
      f"ratio {statistics.median(o) / statistics.median(t):.2f}; per-round ratios "
      + " ".join(f"{a / b:.2f}" for a, b in zip(o, t)))
PY
