#!/usr/bin/env python3
"""Agreement of `posekit hands` on a clip with MediaPipe's own video mode (docs/hands.md, "Video").

usage: MP_PYTHON scripts/hands-video-agreement.py CLIP POSEKIT.jsonl [--frames N] [--cache MEDIAPIPE.json]
  (run with the python that has mediapipe 0.10.14, e.g. a venv's bin/python;
   POSEKIT.jsonl from `posekit hands CLIP --hand-sources palms`)

MediaPipe runs the legacy `hands` solution in video mode (static_image_mode False, model_complexity 1,
max 2 hands) on the clip's frames decoded by ffmpeg as rgb24. Per frame the hands of both are paired
by the smallest mean distance over the 21 points; printed: frames where both, only MediaPipe, only
PoseKit found hands, and the paired hands' mean point distance in pixels (median, 90th percentile,
max over frames).
"""
import json, os, subprocess, sys

import numpy as np


def frames(path, n):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                            "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip().split(",")
    w, h = int(probe[0]), int(probe[1])
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], stdout=subprocess.PIPE)
    for _ in range(n):
        b = p.stdout.read(w * h * 3)
        if len(b) < w * h * 3: break
        yield np.frombuffer(b, np.uint8).reshape(h, w, 3)
    p.kill(); p.wait()


def main():
    clip, ours_path = sys.argv[1], sys.argv[2]
    n = int(sys.argv[sys.argv.index("--frames") + 1]) if "--frames" in sys.argv else 300
    ours = {}
    for line in open(ours_path):
        rec = json.loads(line)
        if "hands" not in rec: continue
        ours[rec["frame"]] = [np.array([[p["x"], p["y"]] for p in h["keypoints"]]) for h in rec["hands"]]
    cache = sys.argv[sys.argv.index("--cache") + 1] if "--cache" in sys.argv else None
    if cache and os.path.exists(cache):
        recorded = [[np.array(h) for h in f] for f in json.load(open(cache))]
    else:
        import mediapipe as mp
        det = mp.solutions.hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1)
        recorded = []
        for f in frames(clip, n):
            H, W = f.shape[:2]
            r = det.process(f)
            recorded.append([np.array([[p.x * W, p.y * H] for p in lm.landmark]) for lm in (r.multi_hand_landmarks or [])])
        if cache: json.dump([[h.tolist() for h in f] for f in recorded], open(cache, "w"))
    both = only_mp = only_ours = 0
    distances = []
    count = 0
    for i, theirs in enumerate(recorded):
        mine = list(ours.get(i, []))
        count += 1
        if theirs and mine: both += 1
        elif theirs: only_mp += 1
        elif mine: only_ours += 1
        for t in theirs:
            if not mine: break
            d = [float(np.linalg.norm(t - m, axis=1).mean()) for m in mine]
            j = int(np.argmin(d)); distances.append(d[j]); mine.pop(j)
    d = np.array(distances) if distances else np.array([np.nan])
    print(json.dumps({"clip": clip.rsplit("/", 1)[-1], "frames": count, "both": both, "only_mediapipe": only_mp,
                      "only_posekit": only_ours, "paired_hands": len(distances),
                      "mean_px_median": round(float(np.median(d)), 3), "mean_px_p90": round(float(np.percentile(d, 90)), 3),
                      "mean_px_max": round(float(d.max()), 3)}))


if __name__ == "__main__":
    main()
