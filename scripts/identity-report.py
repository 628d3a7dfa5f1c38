#!/usr/bin/env python3
"""Identity report for `posekit pose` JSON Lines of video: how well each person keeps one "id".

Per file it prints:
  frames          frames in the file
  id_changes      how often the id of the prominent person (the best-scoring pose of the frame) changes
  distinct_ids    ids seen in the file
  poses/frame     mean reported poses per frame
  multi_frames    share of frames reporting more than one person
and, for files with known identities (--regions), IDF1: the identity F1 of MOT evaluation
(Ristani et al. 2016). Each reported pose is assigned to the known person whose region holds its
head (or torso) center; known people and reported ids are matched one to one so as to agree on the most
poses (IDTP); IDF1 = 2 IDTP / (known detections + reported poses), with a known person counted
as present where their band is in view (a moving band at least half inside the frame, a fixed
one unless the moving one covers its middle) or a pose is found in it.

  scripts/identity-report.py poses/*.jsonl
  scripts/identity-report.py --regions 'left:0:0.5,right:0.5:1' hstack.jsonl
  scripts/identity-report.py --json ...           # one JSON object per file instead of a table

--regions NAME:X0:X1,... gives each known person a band of the frame width (fractions); with
--moving NAME:X0:X1:X1END the band slides linearly from [X0, X1] to [X1END - (X1 - X0), X1END]
over the clip (a person walking across).
"""
import argparse, json, math, sys


def body_center(pose):
    """Where the person is: the mean of the confident head keypoints (the part a person in front
    hides last and a network hallucinates least), else of the torso, else of any."""
    parts = {k["part"]: k for k in pose["keypoints"]}
    pts = [parts[p] for p in ("nose", "leftEye", "rightEye", "leftEar", "rightEar") if parts[p]["score"] >= 0.3]
    pts = pts or [parts[p] for p in ("leftShoulder", "rightShoulder", "leftHip", "rightHip") if parts[p]["score"] >= 0.3]
    if not pts:
        pts = [k for k in pose["keypoints"] if k["score"] >= 0.3] or pose["keypoints"]
    return sum(k["x"] for k in pts) / len(pts), sum(k["y"] for k in pts) / len(pts)


def parse_regions(text, moving):
    regions = []
    for item in filter(None, (text or "").split(",")):
        name, x0, x1 = item.split(":")
        regions.append((name, float(x0), float(x1), None))
    for item in filter(None, (moving or "").split(",")):
        name, x0, x1, end = item.split(":")
        regions.append((name, float(x0), float(x1), float(end)))
    return regions


def region_of(x, width, progress, regions):
    """The known person whose band holds x; a moving band wins over a fixed one (it is in front)."""
    found = None
    for name, x0, x1, end in regions:
        if end is not None:
            shift = (end - x1) * progress
            x0, x1 = x0 + shift, x1 + shift
        if x0 * width <= x < x1 * width:
            if end is not None:
                return name
            found = found or name
    return found


def present(regions, progress):
    """The known people in view: a moving band at least half inside the frame; a fixed band
    unless a moving band (in front) covers its middle."""
    bands = {}
    for name, x0, x1, end in regions:
        if end is not None:
            shift = (end - x1) * progress
            bands[name] = (x0 + shift, x1 + shift, True)
        else:
            bands[name] = (x0, x1, False)
    moving = [b for b in bands.values() if b[2]]
    names = []
    for name, (x0, x1, is_moving) in bands.items():
        if is_moving:
            if min(x1, 1) - max(x0, 0) >= (x1 - x0) / 2:
                names.append(name)
        elif not any(m0 <= (x0 + x1) / 2 < m1 for m0, m1, _ in moving):
            names.append(name)
    return names


def max_agreement(counts):
    """The one-to-one matching of known people and reported ids with the most agreeing poses."""
    names = sorted({a for a, _ in counts}); ids = sorted({b for _, b in counts})
    best = 0
    # Few people: try every matching of names to ids (len(names) is 2 or 3 in the composites).
    def search(i, used, total):
        nonlocal best
        if i == len(names):
            best = max(best, total); return
        search(i + 1, used, total)
        for b in ids:
            if b not in used:
                search(i + 1, used | {b}, total + counts.get((names[i], b), 0))
    search(0, frozenset(), 0)
    return best


def report(path, regions):
    frames = [json.loads(line) for line in open(path) if line.strip()]
    changes, last, seen, poses, multi = 0, None, set(), 0, 0
    counts, known_present = {}, 0
    for n, frame in enumerate(frames):
        ps = frame.get("poses", [])
        poses += len(ps)
        multi += len(ps) > 1
        for p in ps:
            if "id" in p:
                seen.add(p["id"])
        if ps and "id" in ps[0]:
            best = max(ps, key=lambda p: p["score"])["id"]
            if last is not None and best != last:
                changes += 1
            last = best
        if regions:
            progress = n / max(len(frames) - 1, 1)
            in_view = set(present(regions, progress))
            for p in ps:
                name = region_of(body_center(p)[0], frame["width"], progress, regions)
                if name is not None and "id" in p:
                    counts[(name, p["id"])] = counts.get((name, p["id"]), 0) + 1
                    in_view.add(name)
            known_present += len(in_view)
    result = {"file": path, "frames": len(frames), "id_changes": changes, "distinct_ids": len(seen),
              "poses_per_frame": round(poses / max(len(frames), 1), 3),
              "multi_frames": round(multi / max(len(frames), 1), 4)}
    if regions:
        idtp = max_agreement(counts)
        result["idf1"] = round(2 * idtp / max(known_present + poses, 1), 4)
        result["ids_per_person"] = {name: {str(b): n for (a, b), n in sorted(counts.items()) if a == name}
                                    for name, *_ in regions}
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--regions", help="known people: NAME:X0:X1,... (fractions of the width)")
    parser.add_argument("--moving", help="a known person whose band slides: NAME:X0:X1:X1END")
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    args = parser.parse_args()
    regions = parse_regions(args.regions, args.moving)
    rows = [report(f, regions) for f in args.files]
    if args.json:
        for r in rows:
            print(json.dumps(r))
        return
    header = "| file | frames | id changes | distinct ids | poses/frame | frames with >1 person |" + (" IDF1 |" if regions else "")
    print(header); print("|" + "---|" * header.count("|")[:-1] if False else "|" + "---|" * (header.count("|") - 1))
    for r in rows:
        line = f"| {r['file'].rsplit('/', 1)[-1]} | {r['frames']} | {r['id_changes']} | {r['distinct_ids']} | {r['poses_per_frame']:.2f} | {100 * r['multi_frames']:.1f} % |"
        if regions:
            line += f" {r['idf1']:.3f} |"
        print(line)


if __name__ == "__main__":
    main()
