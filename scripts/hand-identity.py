#!/usr/bin/env python3
"""Hands on video measured without hand labels (docs/hands.md, "Hands on video").

usage: scripts/hand-identity.py HANDS.jsonl [--poses POSES.jsonl] [--json]

HANDS.jsonl: `posekit hands` lines ("hands": [...]) or `posekit pose --hands` lines (each pose's "hands" and the
frame's "hands"), or scripts/mediapipe-hands-video.py's lines (MediaPipe itself). POSES.jsonl: `posekit pose`
lines of the same clip (the people, with ids) when HANDS.jsonl has none.

Per clip, the same rules for every method (nothing here trusts a hand's own "person" field):
- a person's confident wrist: a pose keypoint leftWrist/rightWrist scoring >= 0.5 with its elbow >= 0.3;
- a hand is at that wrist when its wrist point lies within 0.5 forearm lengths of it (each hand and each wrist
  once, nearest first): that wrist's (person, side) owns the hand on that frame;
- ids per (person, side): distinct hand ids over the frames where a hand is at that (person, side)'s wrist;
  reported as the mean over the (person, side) pairs that have a hand in 10 frames or more, and the most;
- side flips: changes of "handedness" between consecutive appearances of one hand id, summed over ids;
- wrist coverage: of the frames where a tracked person's wrist is confident, those with a hand at it;
- jitter: for one id on three consecutive frames, the mean over the 21 points of |p(t) - 2 p(t-1) + p(t-2)|
  (what is left once a steady motion is taken out), over the hand's size (the longest side of the palm:
  wrist-indexMCP, wrist-middleMCP, wrist-littleMCP, indexMCP-littleMCP); median and 90th percentile;
- hands, ids, ids seen on 10 frames or more; frames holding the same id twice (must be 0); duplicate hands
  (two hands of one frame whose points lie within 0.25 hand sizes of each other on average).
"""
import json, sys
import numpy as np

PALM = [(0, 5), (0, 9), (0, 17), (5, 17)]


def hand_points(h):
    return np.array([[k["x"], k["y"]] for k in h["keypoints"]], dtype=float)


def hand_size(p):
    return max(np.hypot(*(p[a] - p[b])) for a, b in PALM)


def read(path):
    frames = {}
    for line in open(path):
        rec = json.loads(line)
        if rec.get("type") not in (None, "frame") or "frame" not in rec:
            continue
        frames[rec["frame"]] = rec
    return frames


def poses_of(rec):
    return rec.get("poses", [])


def hands_of(rec):
    hands = list(rec.get("hands", []))
    for p in rec.get("poses", []):
        hands += p.get("hands", [])
    return hands


def wrists(pose):
    k = {kp["part"]: kp for kp in pose["keypoints"]}
    out = []
    for side in ("left", "right"):
        w, e = k.get(side + "Wrist"), k.get(side + "Elbow")
        if not w or not e or w["score"] < 0.5 or e["score"] < 0.3:
            continue
        forearm = np.hypot(w["x"] - e["x"], w["y"] - e["y"])
        if forearm > 0:
            out.append((side, np.array([w["x"], w["y"]]), forearm))
    return out


def measure(hands_path, poses_path=None):
    hands_frames = read(hands_path)
    pose_frames = read(poses_path) if poses_path else hands_frames
    owners = {}          # (person, side) -> {frame: hand id}
    coverage = [0, 0]    # wrists with a hand, confident wrists
    flips = 0
    last_side = {}
    track = {}           # id -> {frame: points}
    twice = duplicates = 0
    all_ids = set(); count = 0
    for f in sorted(set(hands_frames) | set(pose_frames)):
        hands = hands_of(hands_frames.get(f, {}))
        pts = [hand_points(h) for h in hands]
        count += len(hands)
        ids = [h.get("id") for h in hands]
        if len([i for i in ids if i is not None]) != len(set(i for i in ids if i is not None)):
            twice += 1
        for a in range(len(hands)):
            for b in range(a + 1, len(hands)):
                s = min(hand_size(pts[a]), hand_size(pts[b]))
                if s > 0 and np.mean(np.hypot(*(pts[a] - pts[b]).T)) < 0.25 * s:
                    duplicates += 1
        for h, p in zip(hands, pts):
            i = h.get("id")
            if i is None:
                continue
            all_ids.add(i)
            track.setdefault(i, {})[f] = p
            if i in last_side and last_side[i] != h["handedness"]:
                flips += 1
            last_side[i] = h["handedness"]
        pairs = []
        for pose in poses_of(pose_frames.get(f, {})):
            if pose.get("id") is None:
                continue
            for side, w, forearm in wrists(pose):
                coverage[1] += 1
                for j, p in enumerate(pts):
                    d = np.hypot(*(p[0] - w)) / forearm
                    if d <= 0.5:
                        pairs.append((d, j, (pose["id"], side)))
        pairs.sort(key=lambda x: x[0])
        used_h, used_w = set(), set()
        for d, j, key in pairs:
            if j in used_h or key in used_w:
                continue
            used_h.add(j); used_w.add(key)
            coverage[0] += 1
            if hands[j].get("id") is not None:
                owners.setdefault(key, {})[f] = hands[j]["id"]
    per_owner = [len(set(v.values())) for v in owners.values() if len(v) >= 10]
    jitter = []
    for i, fr in track.items():
        for f, p in fr.items():
            if f - 1 in fr and f - 2 in fr:
                s = hand_size(fr[f - 1])
                if s > 0:
                    jitter.append(np.mean(np.hypot(*(p - 2 * fr[f - 1] + fr[f - 2]).T)) / s)
    lengths = [len(v) for v in track.values()]
    return {
        "frames": len(set(hands_frames) | set(pose_frames)), "hands": count, "ids": len(all_ids),
        "ids_10_frames": sum(1 for n in lengths if n >= 10),
        "owners": len(per_owner), "ids_per_owner_mean": float(np.mean(per_owner)) if per_owner else None,
        "ids_per_owner_max": max(per_owner) if per_owner else None,
        "side_flips": flips, "frames_with_an_id_twice": twice, "duplicate_hands": duplicates,
        "confident_wrists": coverage[1], "wrists_with_hand": coverage[0],
        "wrist_coverage": coverage[0] / coverage[1] if coverage[1] else None,
        "jitter_median": float(np.median(jitter)) if jitter else None,
        "jitter_p90": float(np.percentile(jitter, 90)) if jitter else None, "jitter_samples": len(jitter),
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    poses = args[args.index("--poses") + 1] if "--poses" in args else None
    result = measure(args[0], poses)
    if "--json" in args:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k}: {v:.4f}" if isinstance(v, float) else f"{k}: {v}")
