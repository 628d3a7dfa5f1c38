#!/usr/bin/env python3
"""Chooses the rule for hands found through the body (docs/hands.md, "Hands found through the body").

The body model (PoseNet, COCO-17: wrist and elbow) seeds a hand region; the hand landmark model reads
the hand there, then again in the region its landmarks give (MediaPipe's HandLandmarksToRect, as
tracking does on the next frame), `refinements` times; a rule accepts it. This script sweeps, on ONE
image set:
  - the seed region: centre beyond the wrist and side, in forearm lengths;
  - the refinement: how many passes (0-4), and where the refined region's rotation and scale come
    from: both from the landmarks (MediaPipe's rule, "hand"), the rotation from the body's forearm
    ("body-rotation"), or the side from the body's forearm (seed side, "body-scale");
  - acceptance: the body's wrist score, the landmark model's flag, the hand's wrist within k
    forearm lengths of the body's wrist, and whether the last pass must have settled (its region
    centre moved at most m of the region's side);
prints the table and the best setting.

Objective, fixed before the sweep (wave 6): over every visible labelled wrist, the number of wrists
found with wrist error <= t, averaged over t = 0.1, 0.2, 0.3, 0.4, 0.5 forearm (the area under the
cumulative curve of scripts/hands-accuracy.py, in wrists), minus the number of false hands. Ties: more
wrists within 0.1, then fewer false hands. Palm-detected hands (--palms: `posekit hands --hand-sources
palms` on the same images) are kept first, as `posekit hands` does.
The hand landmark model runs in ai-edge-litert on crops made by the shared NumPy reference of
MediaPipe's crop (../shared/tools/mediapipe_reference/pyref.py, imported, not copied), so the choice
does not depend on PoseKit's own build; `posekit hands --hand-sources` is then measured with the
chosen constants by scripts/hands-accuracy.py on the other sets.

Ground truth in media/images and images-val has no hand joints: only COCO-17 wrists and elbows. A
hand counts as found at a labelled visible wrist (v = 2) when its wrist landmark lies within 0.5
ground-truth forearm lengths of it; a hand at no labelled wrist (any v) is false, in images whose
every visible person is labelled.

usage: hand-seeding-choose.py POSES.jsonl GT.json IMAGEDIR [--palms PALMS.jsonl] [--dump FILE | --load FILE]
  POSES: `posekit pose IMAGEDIR/*.ppm` output
"""
import itertools, json, math, os, sys, types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "shared"))
sys.modules.setdefault("PIL", types.ModuleType("PIL"))           # pyref imports PIL only for loading files
sys.modules["PIL"].Image = None
sys.path.insert(0, os.path.join(SHARED, "tools", "mediapipe_reference"))
import pyref  # noqa: E402

WRIST, ELBOW = {"left": 9, "right": 10}, {"left": 7, "right": 8}
USED = [0, 1, 2, 3, 5, 6, 9, 10, 13, 14, 17, 18]


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace(): pos += 1
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos); continue
        end = pos
        while not data[end:end + 1].isspace(): end += 1
        fields.append(data[pos:end]); pos = end
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data[pos + 1:pos + 1 + w * h * 3], np.uint8).reshape(h, w, 3)


def rotation(x0, y0, x1, y1):
    return pyref.normalize_radians(math.pi / 2 - math.atan2(-(y1 - y0), x1 - x0))


def seed_region(wrist, elbow, centre, side, W, H):
    f = wrist - elbow; L = float(np.hypot(*f))
    c = wrist + f * centre
    return {"x_center": c[0] / W, "y_center": c[1] / H, "width": L * side / W, "height": L * side / H,
            "rotation": rotation(elbow[0], elbow[1], wrist[0], wrist[1])}


def landmarks_region(lm, W, H, rotation_override=None, side_px=None):
    """HandLandmarksToRect (12 points), then shift -0.1, square, x 2; optionally the body's rotation
    (the rect is measured in that frame) or the body's side (the seed region's side, in pixels)."""
    p = lm[USED, :2]
    x0, y0 = p[0, 0] * W, p[0, 1] * H
    x1 = ((p[4, 0] + p[8, 0]) / 2 + p[6, 0]) / 2 * W; y1 = ((p[4, 1] + p[8, 1]) / 2 + p[6, 1]) / 2 * H
    r = rotation(x0, y0, x1, y1) if rotation_override is None else rotation_override
    ac = (p.max(0) + p.min(0)) / 2
    o = (p - ac) * [W, H]
    c, s = math.cos(-r), math.sin(-r)
    q = np.stack([o[:, 0] * c - o[:, 1] * s, o[:, 0] * s + o[:, 1] * c], 1)
    pc = (q.max(0) + q.min(0)) / 2
    cx = pc[0] * math.cos(r) - pc[1] * math.sin(r) + W * ac[0]
    cy = pc[0] * math.sin(r) + pc[1] * math.cos(r) + H * ac[1]
    rect = {"x_center": cx / W, "y_center": cy / H, "width": (q[:, 0].max() - q[:, 0].min()) / W,
            "height": (q[:, 1].max() - q[:, 1].min()) / H, "rotation": r}
    rect = pyref.transform_rect(rect, W, H, 2.0, shift_y=-0.1)
    if side_px is not None:
        rect["width"], rect["height"] = side_px / W, side_px / H
    return rect


def read_hand(img, roi):
    x, pad, _ = pyref.image_to_tensor(img, 224, 224, (0.0, 1.0), "replicate", roi, "opencv")
    out = pyref.hand_landmarks_from_outputs(pyref.run_model("hand_landmark_full", x), roi, pad)
    return out["flag"], out["landmarks"]


# Wave 5 swept centres 0.3-0.5 and sides 0.8-1.2 with one refinement and chose 0.5 / 0.8; refining moves
# the region onto the landmarks, so wave 6 keeps that centre and tries one wider side.
CENTRES, SIDES, PASSES, SEED_SCORES = [0.5], [0.8, 1.2], 4, [0.3, 0.5]
VARIANTS = ["hand", "body-rotation", "body-scale"]


def collect(poses_path, gt, folder, palms_path):
    """Every read the sweep needs: per seed, region and variant, the passes' flag, wrist and move."""
    by_name = {os.path.splitext(im["file_name"])[0]: im for im in gt["images"]}
    anns = {}
    for a in gt["annotations"]:
        anns.setdefault(a["image_id"], []).append(np.array(a["keypoints"], float).reshape(17, 3))
    palms = {}
    if palms_path:
        for line in open(palms_path):
            rec = json.loads(line); name = os.path.splitext(os.path.basename(rec["source"]))[0]
            palms[name] = [np.array([h["keypoints"][0]["x"], h["keypoints"][0]["y"]]) for h in rec.get("hands", [])]
    reads, gts = [], {}
    for line in open(poses_path):
        rec = json.loads(line); name = os.path.splitext(os.path.basename(rec["source"]))[0]
        im = by_name.get(name)
        if im is None: continue
        img = read_ppm(os.path.join(folder, im.get("ppm_file", name + ".ppm")))
        H, W = img.shape[:2]
        gts[name] = (anns.get(im["id"], []), im.get("all_visible_people_annotated", True), palms.get(name, []))
        for pose in rec["poses"]:
            k = {p["part"]: p for p in pose["keypoints"]}
            for side in ("left", "right"):
                w, e = k[side + "Wrist"], k[side + "Elbow"]
                score = min(w["score"], e["score"])
                wrist, elbow = np.array([w["x"], w["y"]]), np.array([e["x"], e["y"]])
                L = float(np.hypot(*(wrist - elbow)))
                if L <= 0 or score < min(SEED_SCORES): continue
                body_rotation = rotation(elbow[0], elbow[1], wrist[0], wrist[1])
                for c, s in itertools.product(CENTRES, SIDES):
                    roi = seed_region(wrist, elbow, c, s, W, H)
                    flag0, lm0 = read_hand(img, roi)
                    for variant in VARIANTS:
                        passes = [(flag0, lm0[0, :2] * [W, H], 0.0)]
                        region, lm = roi, lm0
                        for _ in range(PASSES):
                            nxt = landmarks_region(lm, W, H, body_rotation if variant == "body-rotation" else None,
                                                   L * s if variant == "body-scale" else None)
                            move = math.hypot((nxt["x_center"] - region["x_center"]) * W,
                                              (nxt["y_center"] - region["y_center"]) * H) / max(nxt["width"] * W, 1e-6)
                            flag, lm = read_hand(img, nxt)
                            passes.append((flag, lm[0, :2] * [W, H], move))
                            region = nxt
                        reads.append({"image": name, "score": score, "seed": wrist, "L": L, "c": c, "s": s,
                                      "variant": variant, "passes": passes})
        print(f"{name}: {len(rec['poses'])} poses", file=sys.stderr)
    return reads, gts


def evaluate(reads, gts, c, s, variant, refinements, min_score, min_flag, max_dist, max_move):
    """Wrists found within each t, false hands, their errors (forearms) for one setting."""
    within, false, errors = np.zeros(len(THRESHOLDS)), 0, []
    for name, (people, complete, palm_wrists) in gts.items():
        hands = []
        for r in reads:
            if r["image"] != name or r["c"] != c or r["s"] != s or r["variant"] != variant or r["score"] < min_score:
                continue
            flag, wrist, move = r["passes"][refinements]
            if flag >= min_flag and np.hypot(*(wrist - r["seed"])) <= max_dist * r["L"] and move <= max_move:
                hands.append({**r, "wrist": wrist})
        kept = [{"wrist": w, "palm": True} for w in palm_wrists]
        for h in sorted(hands, key=lambda r: -r["score"]):
            # a seed whose wrist already has a hand is not read; two seeds finding one hand keep the first
            if all(np.hypot(*(h["seed"] - k["wrist"])) > max_dist * h["L"] and
                   np.hypot(*(h["wrist"] - k["wrist"])) > 0.5 * h["L"] for k in kept):
                kept.append(h)
        used = set()
        targets = [(i, side, p) for i, p in enumerate(people) for side in ("left", "right")]
        for h in kept:
            best = None
            for i, side, p in targets:
                wv, ev = p[WRIST[side]], p[ELBOW[side]]
                if wv[2] == 0 or ev[2] == 0 or (i, side) in used: continue
                d = float(np.hypot(*(h["wrist"] - wv[:2]))) / max(float(np.hypot(*(wv[:2] - ev[:2]))), 1e-6)
                if d <= 0.5 and (best is None or d < best[0]): best = (d, (i, side), wv[2])
            if best is None:
                false += complete and not h.get("palm")
            else:
                used.add(best[1])
                if best[2] == 2:
                    errors.append(best[0]); within += [best[0] <= t for t in THRESHOLDS]
    visible = sum(p[WRIST[sd]][2] == 2 and p[ELBOW[sd]][2] > 0 for people, _, _ in gts.values() for p in people
                  for sd in ("left", "right"))
    return within, visible, false, errors


THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5)


def main():
    poses_path, gt_path, folder = sys.argv[1:4]
    gt = json.load(open(gt_path))
    palms = sys.argv[sys.argv.index("--palms") + 1] if "--palms" in sys.argv else None
    import pickle
    if "--load" in sys.argv:
        reads, gts = pickle.load(open(sys.argv[sys.argv.index("--load") + 1], "rb"))
    else:
        reads, gts = collect(poses_path, gt, folder, palms)
    if "--dump" in sys.argv:
        pickle.dump((reads, gts), open(sys.argv[sys.argv.index("--dump") + 1], "wb"))

    rows = []
    for setting in itertools.product(CENTRES, SIDES, VARIANTS, range(PASSES + 1), SEED_SCORES,
                                     [0.0, 0.05, 0.1, 0.2, 0.5], [0.25, 0.35, 0.5], [9.9, 0.2, 0.1, 0.05]):
        if setting[3] == 0 and setting[2] != "hand": continue     # no refinement: the variant is moot
        within, visible, false, errors = evaluate(reads, gts, *setting)
        objective = within.mean() - false
        rows.append((objective, within[0], -false, setting, within, visible, false,
                     float(np.mean(errors)) if errors else float("nan")))
    rows.sort(key=lambda r: r[:3], reverse=True)
    print("objective | centre side variant refinements seed_score flag wrist_dist max_move | "
          "found within t=0.1..0.5 / visible, false, mean wrist error (forearms)")
    for r in rows[:30]:
        print(f"{r[0]:6.2f} | {' '.join(str(x) for x in r[3])} | {[int(x) for x in r[4]]}/{r[5]} {r[6]} {r[7]:.3f}")
    shipped = (0.5, 0.8, "hand", 1, 0.5, 0.0, 0.5, 9.9)
    for r in rows:
        if r[3] == shipped:
            print(f"wave 5's rule: {r[0]:6.2f} | {' '.join(str(x) for x in r[3])} | {[int(x) for x in r[4]]}/{r[5]} {r[6]} {r[7]:.3f}")


if __name__ == "__main__":
    main()
