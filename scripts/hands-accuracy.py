#!/usr/bin/env python3
"""Hands found, and how accurately, against ground truth (docs/hands.md, "Accuracy").

usage: hands-accuracy.py GT.json RESULTS... [--label NAME...]
  RESULTS: one or more result files, each `posekit hands` JSON Lines (one object per image: "source", "hands": [{"keypoints":
           [{"x", "y", ...} x 21]}]) or a COCO results list (mediapipe_peer.py hands: "image_id",
           "keypoints": [x, y, v] x 21).
  GT.json: media/hands/ground_truth.json (21 points per hand) or media/images[-val]/ground_truth.json
           (COCO-17 bodies: only wrists and elbows say where hands are).

21-point ground truth: each labelled hand takes the unclaimed predicted hand with the smallest mean
joint distance, if that is under half the hand box's longer side (found). PCK@0.2: joints within
0.2 x the box's longer side, over all labelled hands (a hand not found misses all 21); mean error in
pixels over the found hands.
Body ground truth: a hand is found at a visible labelled wrist (v = 2) when its wrist landmark lies
within 0.5 ground-truth forearm lengths (elbow to wrist) of it; "wrist error" is that distance in
forearm lengths (mean over found); a predicted hand at no labelled wrist is false (counted only in
images whose every visible person is labelled).

Fair comparison (body sets): the cumulative curve over EVERY visible labelled wrist, the fraction found
with wrist error <= t for t = 0.1 ... 0.5 forearm (a missed wrist counts as not found at every t), so a
method that finds more hands but places them worse, or fewer but better, is seen at each t. With several
RESULTS, each line also gives the mean error over the labelled wrists (21-point sets: hands) that EVERY
results file finds ("common"), which compares placement on the same hands.
"""
import json, math, os, sys


def load_results(path, gt):
    by_name = {im["file_name"]: im["id"] for im in gt["images"]}
    by_stem = {os.path.splitext(k)[0]: v for k, v in by_name.items()}
    text = open(path).read().strip()
    hands = {}
    if text.startswith("["):
        for r in json.loads(text):
            k = r["keypoints"]
            hands.setdefault(r["image_id"], []).append([(k[3 * i], k[3 * i + 1]) for i in range(21)])
        return hands
    for line in text.splitlines():
        rec = json.loads(line)
        if rec.get("type") not in (None, "frame", "hands"):
            continue                                   # gesture events and other records
        stem = os.path.splitext(os.path.basename(rec.get("source", "")))[0]
        image_id = by_stem.get(stem)
        if image_id is None:
            continue
        for hand in rec.get("hands", []):
            pts = hand["keypoints"]
            hands.setdefault(image_id, []).append([(p["x"], p["y"]) if isinstance(p, dict) else (p[0], p[1]) for p in pts])
    return hands


def score_hands(gt, hands):
    found, within, total, errors, per_hand = 0, 0, 0, [], {}
    for a in gt["annotations"]:
        k = a["keypoints"]
        g = [(k[3 * i], k[3 * i + 1]) for i in range(21)]
        side = max(a["bbox"][2], a["bbox"][3])
        candidates = hands.get(a["image_id"], [])
        best = None
        for j, h in enumerate(candidates):
            d = sum(math.dist(p, q) for p, q in zip(g, h)) / 21
            if best is None or d < best[0]:
                best = (d, j)
        total += 21
        if best is not None and best[0] < 0.5 * side:
            h = candidates.pop(best[1])
            found += 1
            errors.append(best[0])
            per_hand[a["id"]] = best[0]
            within += sum(math.dist(p, q) <= 0.2 * side for p, q in zip(g, h))
    n = len(gt["annotations"])
    return {"found": f"{found}/{n}", "pck@0.2": round(within / total, 3),
            "mean_error_px": round(sum(errors) / len(errors), 2) if errors else None}, per_hand


def score_wrists(gt, hands):
    images = {im["id"]: im for im in gt["images"]}
    found, visible, false, errors, per_wrist = 0, 0, 0, [], {}
    people = {}
    for a in gt["annotations"]:
        people.setdefault(a["image_id"], []).append(a["keypoints"])
    for image_id, im in images.items():
        targets = []
        for k in people.get(image_id, []):
            for wrist, elbow in ((9, 7), (10, 8)):
                w, e = k[3 * wrist:3 * wrist + 3], k[3 * elbow:3 * elbow + 3]
                if w[2] > 0 and e[2] > 0:
                    targets.append((w, math.dist(w[:2], e[:2]), (image_id, len(targets))))
                visible += w[2] == 2 and e[2] > 0
        claimed = set()
        for h in hands.get(image_id, []):
            best = None
            for t, (w, forearm, _) in enumerate(targets):
                d = math.dist(h[0], w[:2]) / max(forearm, 1e-6)
                if d <= 0.5 and t not in claimed and (best is None or d < best[0]):
                    best = (d, t)
            if best is None:
                false += bool(im.get("all_visible_people_annotated", True))
                continue
            claimed.add(best[1])
            if targets[best[1]][0][2] == 2:
                found += 1
                errors.append(best[0])
                per_wrist[targets[best[1]][2]] = best[0]
    curve = {f"within_{t}": round(sum(e <= t for e in errors) / max(visible, 1), 3) for t in THRESHOLDS}
    return {"found": f"{found}/{visible}", "false": false,
            "wrist_error_forearms": round(sum(errors) / len(errors), 3) if errors else None, **curve}, per_wrist


THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5)   # wrist error in ground-truth forearm lengths


def main():
    args, labels = sys.argv[1:], []
    if "--label" in args:
        i = args.index("--label")
        args, labels = args[:i], args[i + 1:]
    gt = json.load(open(args[0]))
    with21 = len(gt["annotations"][0]["keypoints"]) == 63
    scored = []
    for n, path in enumerate(args[1:]):
        result, errors = (score_hands if with21 else score_wrists)(gt, load_results(path, gt))
        scored.append((labels[n] if n < len(labels) else os.path.basename(path), result, errors))
    common = set.intersection(*(set(e) for _, _, e in scored)) if scored else set()
    for label, result, errors in scored:
        line = {"set": os.path.basename(os.path.dirname(os.path.abspath(args[0]))), "results": label, **result}
        if len(scored) > 1:
            key = "common_error_px" if with21 else "common_wrist_error_forearms"
            line["common"] = len(common)
            line[key] = round(sum(errors[k] for k in common) / len(common), 2 if with21 else 3) if common else None
        print(json.dumps(line))


if __name__ == "__main__":
    main()
