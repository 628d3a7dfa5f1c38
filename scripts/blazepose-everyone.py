#!/usr/bin/env python3
"""BlazePose for everyone in the frame (`--max-poses N`: people BlazePose's detector misses found through PoseNet),
chosen on one image set and reported on another (docs/blazepose.md, "Everyone in the frame").

usage: scripts/blazepose-everyone.py POSEKIT SET_DIR [--max-poses N] [--reach R ...] [--close C ...] [--score S ...]
                                     [--blazepose-only]

For PoseNet (`posekit pose`, its defaults) and for BlazePose with each region reach R (the person's radius over
the farthest confident keypoint's distance from the hip centre; `POSEKIT_BLAZEPOSE_PERSON_REACH`, default the
library's; `POSEKIT_BLAZEPOSE_PERSON_REACH`), and each "close enough" distance C (a reading of a person lying within
C of PoseNet's pose, in the pose's size, is kept at once, else the closest; `POSEKIT_BLAZEPOSE_PERSON_CLOSE`): COCO OKS AP of the COCO-17 subset (`posekit eval --json`) on the whole set and on its crowded photos
(3 or more labelled people), and the labelled people found: a person is found by a pose whose labelled points lie
within 0.25 * sqrt(area) of the person's labels on average (each pose and each person once, nearest first), the
rule of BlazePoseMultiPersonTests.

The choice (on media/images only): the setting whose BlazePose finds at least as many labelled people as PoseNet
(the issue's first bar), and among those the highest AP of the whole set (its second). Reach swept 0.9, 1.0, 1.1,
1.25, 1.4 (wave 7, first agreeing region); C swept 0, 0.05, 0.1, 0.15, 0.25 at reach 1.1 (wave 8); the library's
defaults (`BlazePoseRegionFromPose.reach`, `.closeEnough`) are the choice.

Wave 9: a person BlazePose reads in no region is reported from PoseNet's pose (`--blazepose-only` turns that off,
as before), and the score a person found through PoseNet ranks by, S (`POSEKIT_BLAZEPOSE_PERSON_SCORE`, a
`BlazePosePersonScore`: flag, product, source, visibility), swept on media/images by AP (every rule finds the same people);
`BlazePoseRegionFromPose.scoring`'s default is the choice.
"""
import json, math, os, subprocess, sys, tempfile


def run(args, env=None):
    return subprocess.run(args, capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}).stdout


def found(gt, lines):
    by_name = {os.path.splitext(im["file_name"])[0]: im["id"] for im in gt["images"]}
    people = {}
    for a in gt["annotations"]:
        people.setdefault(a["image_id"], []).append(a)
    total = 0
    for line in lines:
        rec = json.loads(line)
        image = by_name.get(os.path.splitext(os.path.basename(rec["source"]))[0])
        if image is None: continue
        pairs = []
        for p, pose in enumerate(rec.get("poses", [])):
            k = {kp["part"]: kp for kp in pose["keypoints"]}
            for g, a in enumerate(people.get(image, [])):
                names = ["nose", "leftEye", "rightEye", "leftEar", "rightEar", "leftShoulder", "rightShoulder", "leftElbow",
                         "rightElbow", "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"]
                d = [math.dist((k[n]["x"], k[n]["y"]), (a["keypoints"][3 * i], a["keypoints"][3 * i + 1]))
                     for i, n in enumerate(names) if a["keypoints"][3 * i + 2] > 0 and n in k]
                if d and a.get("area", 0) > 0:
                    e = sum(d) / len(d) / math.sqrt(a["area"])
                    if e <= 0.25: pairs.append((e, p, g))
        used_p, used_g = set(), set()
        for e, p, g in sorted(pairs):
            if p in used_p or g in used_g: continue
            used_p.add(p); used_g.add(g); total += 1
    return total, len(gt["annotations"])


def measure(posekit, folder, gt_path, model_args, env=None):
    gt = json.load(open(gt_path))
    images = sorted(os.path.join(folder, im["ppm_file"] if "ppm_file" in im else os.path.splitext(im["file_name"])[0] + ".ppm") for im in gt["images"])
    ap = json.loads(run([posekit, "eval", "--ground-truth", gt_path, "--json"] + model_args + images, env).strip().splitlines()[-1])["AP"]
    lines = run([posekit, "pose"] + model_args + images, env).strip().splitlines()
    f, n = found(gt, lines)
    return {"AP": ap, "found": f, "people": n}


def main():
    posekit, folder = sys.argv[1], sys.argv[2]
    args = sys.argv[3:]
    n = args[args.index("--max-poses") + 1] if "--max-poses" in args else "5"
    def values(flag):
        if flag not in args: return [None]
        rest = args[args.index(flag) + 1:]
        return [v for v in rest[:next((i for i, v in enumerate(rest) if v.startswith("--")), len(rest))]]
    reaches, closes, scores = values("--reach"), values("--close"), values("--score")
    only = ["--blazepose-only"] if "--blazepose-only" in args else []
    gt_path = os.path.join(folder, "ground_truth.json")
    gt = json.load(open(gt_path))
    counts = {}
    for a in gt["annotations"]: counts[a["image_id"]] = counts.get(a["image_id"], 0) + 1
    crowded = {**gt, "images": [im for im in gt["images"] if counts.get(im["id"], 0) >= 3],
               "annotations": [a for a in gt["annotations"] if counts.get(a["image_id"], 0) >= 3]}
    crowded_path = os.path.join(tempfile.mkdtemp(), "crowded.json")
    json.dump(crowded, open(crowded_path, "w"))
    for label, model_args, env in [("posenet", [], None)] + [
            (f"blazepose --max-poses {n}{' --blazepose-only' if only else ''} reach {r or 'default'} close {c or 'default'} score {sc or 'default'}",
             ["--model", "blazepose", "--max-poses", n] + only,
             {**({"POSEKIT_BLAZEPOSE_PERSON_REACH": r} if r else {}), **({"POSEKIT_BLAZEPOSE_PERSON_CLOSE": c} if c else {}),
              **({"POSEKIT_BLAZEPOSE_PERSON_SCORE": sc} if sc else {})})
            for r in reaches for c in closes for sc in scores] + [
            ("blazepose (its detector only, --max-poses 1)", ["--model", "blazepose"], None)]:
        print(json.dumps({"set": os.path.basename(os.path.normpath(folder)), "model": label,
                          "all": measure(posekit, folder, gt_path, model_args, env),
                          "crowded": measure(posekit, folder, crowded_path, model_args, env) if crowded["images"] else None}), flush=True)


if __name__ == "__main__":
    main()
