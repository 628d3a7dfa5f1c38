#!/usr/bin/env python3
"""Jitter of `posekit pose` keypoints on held-still frames, raw (--no-smooth) against smoothed.

    scripts/smoothing-jitter.py RAW_DIR SMOOTH_DIR [WINDOW STILL]   (defaults 7 and 0.02)

Both directories hold <clip>.jsonl from `posekit pose` over the same clips (scripts/action-poses.sh
makes them). In each clip the prominent person is the id most often having the largest box. A
pair of consecutive frames is *held still* when that person's raw box center moves less than
STILL (fraction of the box diagonal) and its diagonal changes less than STILL. Jitter is the mean
frame-to-frame displacement of the keypoints scoring at least 0.3 in both frames, in pixels and
as a fraction of the box diagonal, over exactly the same pairs and keypoints raw and smoothed.
"""
import json, math, os, sys
from collections import Counter

STILL = 0.02
WINDOW = 7
MIN_SCORE = 0.3

def load(path):
    frames = []
    for line in open(path):
        if line.strip():
            record = json.loads(line)
            frames.append({p["id"]: p for p in record["poses"]})
    return frames

def box_geometry(pose):
    x0, y0, x1, y1 = pose["box"]
    return (x0 + x1) / 2, (y0 + y1) / 2, math.hypot(x1 - x0, y1 - y0)

def held_still(window):
    """Whether the boxes of a full window stay within STILL diagonals of their mean."""
    if len(window) < 2 * WINDOW + 1 or any(g is None for g in window):
        return False
    mx, my, md = (sum(g[i] for g in window) / len(window) for i in range(3))
    return all(math.hypot(x - mx, y - my) < STILL * md and abs(d - md) < STILL * md for x, y, d in window)

def main(raw_dir, smooth_dir):
    total = {"raw": 0.0, "smooth": 0.0, "raw_rel": 0.0, "smooth_rel": 0.0, "n": 0, "pairs": 0}
    print(f"{'clip':24} {'pairs':>6} {'raw px':>8} {'smoothed px':>12} {'change':>8}")
    for name in sorted(os.listdir(raw_dir)):
        if not name.endswith(".jsonl"):
            continue
        raw, smooth = load(os.path.join(raw_dir, name)), load(os.path.join(smooth_dir, name))
        assert len(raw) == len(smooth), name
        largest = Counter(max(f, key=lambda i: box_geometry(f[i])[2]) for f in raw if f)
        if not largest:
            continue
        person = largest.most_common(1)[0][0]
        sums = {"raw": 0.0, "smooth": 0.0, "raw_rel": 0.0, "smooth_rel": 0.0, "n": 0, "pairs": 0}
        geometry = [box_geometry(f[person]) if person in f else None for f in raw]
        still = [held_still(geometry[max(0, f - WINDOW):f + WINDOW + 1]) for f in range(len(raw))]
        for f in range(1, len(raw)):
            if not (still[f - 1] and still[f]):
                continue
            a, b = raw[f - 1][person], raw[f][person]
            ad = geometry[f - 1][2]
            sums["pairs"] += 1
            for k in range(17):
                if a["keypoints"][k]["score"] < MIN_SCORE or b["keypoints"][k]["score"] < MIN_SCORE:
                    continue
                for kind, frames in (("raw", raw), ("smooth", smooth)):
                    p, q = frames[f - 1][person]["keypoints"][k], frames[f][person]["keypoints"][k]
                    d = math.hypot(q["x"] - p["x"], q["y"] - p["y"])
                    sums[kind] += d
                    sums[kind + "_rel"] += d / ad
                sums["n"] += 1
        if not sums["n"]:
            print(f"{name[:-6]:24} {0:6d}   (never held still)")
        else:
            print(f"{name[:-6]:24} {sums['pairs']:6d} {sums['raw'] / sums['n']:8.2f} {sums['smooth'] / sums['n']:12.2f} "
                  f"{100 * (sums['smooth'] / sums['raw'] - 1):+7.0f}%")
        for key in total:
            total[key] += sums[key]
    n = total["n"]
    print(f"{'all clips':24} {total['pairs']:6d} {total['raw'] / n:8.2f} {total['smooth'] / n:12.2f} "
          f"{100 * (total['smooth'] / total['raw'] - 1):+7.0f}%   (of the box diagonal: "
          f"{100 * total['raw_rel'] / n:.2f}% -> {100 * total['smooth_rel'] / n:.2f}%)")

if __name__ == "__main__":
    if len(sys.argv) > 3:
        WINDOW, STILL = int(sys.argv[3]), float(sys.argv[4])
    main(*sys.argv[1:3])
