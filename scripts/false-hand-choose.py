#!/usr/bin/env python3
"""Chooses the false-hand rule (`FalseHandRule`, docs/hands.md "No hands on clothing") on one image set.

usage: scripts/false-hand-choose.py POSEKIT SET_DIR [--cache FILE]

Runs `POSEKIT pose --hands --max-hands 4 --keep-false-hands` on every PPM of SET_DIR (PoseNet's people, the
default hand sources, every hand kept with the person holding it: each pose's "hands"), then replays the rule
for every setting of the grid below on those hands and scores what is kept as scripts/hands-accuracy.py scores
`posekit hands` (visible labelled wrists found within t = 0.1 ... 0.5 ground-truth forearms, hands at no
labelled wrist are false). The objective, fixed before the sweep ran: the wrists found summed over the five t
(the area under the curve, in wrists) minus the false hands; ties go to the setting that removes the least
(the widest size range, then the lowest presence bar).

The rule replayed (Swift: Sources/Detectors/FalseHandRule.swift): a hand a person holds is false when its
size (the palm's longest side) over that person's forearm on its side is outside [lo, hi]; a hand no person
holds is false when its wrist lies inside a person's box (a pose scoring >= 0.2: its keypoints scoring >= 0.3,
widened by `margin` of the box's longer side) and its score is under `trusted`; a hand whose palm is under 2 px is false.
"""
import importlib.util, itertools, json, math, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("hands_accuracy", os.path.join(HERE, "hands-accuracy.py"))
accuracy = importlib.util.module_from_spec(spec); spec.loader.exec_module(accuracy)

PALM = [(0, 5), (0, 9), (0, 17), (5, 17)]
GRID = {"lo": [0, 0.1, 0.15, 0.2, 0.25, 0.3], "hi": [1.0, 1.5, 2.0, math.inf],
        "trusted": [0.5, 0.7, 0.8, 0.9, 0.95, 1.01], "margin": [0, 0.1]}


def palm(hand):
    p = [(k["x"], k["y"]) for k in hand["keypoints"]]
    return max(math.dist(p[a], p[b]) for a, b in PALM)


def forearm(pose, side):
    k = {kp["part"]: kp for kp in pose["keypoints"]}
    w, e = k.get(side + "Wrist"), k.get(side + "Elbow")
    if not w or not e: return None
    d = math.dist((w["x"], w["y"]), (e["x"], e["y"]))
    return d if d > 0 else None


def box(pose, margin):
    if pose["score"] < 0.2: return None
    pts = [(k["x"], k["y"]) for k in pose["keypoints"] if k["score"] >= 0.3]
    if len(pts) < 3: return None
    x0, y0 = min(p[0] for p in pts), min(p[1] for p in pts)
    x1, y1 = max(p[0] for p in pts), max(p[1] for p in pts)
    m = margin * max(x1 - x0, y1 - y0)
    return x0 - m, y0 - m, x1 + m, y1 + m


def kept(record, s):
    out = []
    poses = record.get("poses", [])
    held = [(h, p) for p in poses for h in p.get("hands", [])] + [(h, None) for h in record.get("hands", [])]
    for hand, owner in held:
        size = palm(hand)
        if size < 2: continue
        if owner is not None:
            f = forearm(owner, hand["handedness"])
            if f is not None and not (s["lo"] <= size / f <= s["hi"]): continue
        elif hand["score"] < s["trusted"]:
            w = hand["keypoints"][0]
            if any(b and b[0] <= w["x"] <= b[2] and b[1] <= w["y"] <= b[3] for b in (box(p, s["margin"]) for p in poses)):
                continue
        out.append(hand)
    return out


def main():
    posekit, folder = sys.argv[1], sys.argv[2]
    cache = sys.argv[sys.argv.index("--cache") + 1] if "--cache" in sys.argv else None
    if cache and os.path.exists(cache):
        records = json.load(open(cache))
    else:
        records = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".ppm"):
                out = subprocess.run([posekit, "pose", "--hands", "--max-hands", "4", "--keep-false-hands", os.path.join(folder, name)],
                                     capture_output=True, text=True, check=True).stdout
                records += [json.loads(l) for l in out.splitlines() if l.strip()]
        if cache: json.dump(records, open(cache, "w"))
    gt = json.load(open(os.path.join(folder, "ground_truth.json")))
    results = []
    for values in itertools.product(*GRID.values()):
        s = dict(zip(GRID, values))
        lines = [json.dumps({"source": r["source"], "hands": kept(r, s)}) for r in records]
        path = "/tmp/false-hand-choose.jsonl"
        open(path, "w").write("\n".join(lines) + "\n")
        score, _ = accuracy.score_wrists(gt, accuracy.load_results(path, gt))
        visible = int(score["found"].split("/")[1])
        area = sum(score[f"within_{t}"] * visible for t in accuracy.THRESHOLDS)
        results.append((round(area - score["false"], 3), -(s["hi"] - s["lo"]) if s["hi"] != math.inf else -99, s["trusted"], s, score))
    results.sort(key=lambda r: (-r[0], r[1], r[2]))
    base = next(r for r in results if r[3] == {"lo": 0, "hi": math.inf, "trusted": 0.5, "margin": 0})
    print(json.dumps({"no_rule": base[4], "objective": base[0]}))
    for r in results[:10]:
        print(json.dumps({"objective": r[0], **{k: (None if v == math.inf else v) for k, v in r[3].items()}, **r[4]}))


if __name__ == "__main__":
    main()
