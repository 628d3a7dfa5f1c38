#!/usr/bin/env python3
"""The accuracy tables of docs/accuracy.md, re-created from `posekit pose` and `posekit eval` runs.

Scores are COCO keypoint AP as the COCO benchmark computes it (OKS AP over thresholds
.50:.05:.95, at most 20 poses per image; `posekit eval` equals pycocotools), on the shared images
(the PPM copies):

  images      ../shared/media/images      13 images, 21 people (COCO, MPII, Human3.6M; 333 to 1280 px)
  images-val  ../shared/media/images-val  12 images, 20 people (AI Challenger, JHMDB, LV-MHP,
                                          MPI-INF-3DHP; 180 to 2048 px)
  union       both, against one ground truth merged from the two (their image ids differ)

The protocol (docs/accuracy.md "How settings are chosen and reported"):
  1. The candidates are the grid CANDIDATES below: input sizes (one, or with 513 merged), the
     upscale limit, the output stride, flip averaging, and a few single settings.
  2. Each candidate runs once over the 25 images (`posekit pose`, one process); every AP is
     `posekit eval --poses` of those poses against the set's ground truth. (The script checks
     that `posekit eval` run directly on the images gives the same AP for the settings it reports.)
  3. A setting is chosen on one set and reported on the other, in both directions. The rule sees
     only the choosing set: the best AP there (ties: the cheaper).
  4. `--accurate` is the setting chosen on images-val; its AP on images is the number to trust.
     Chosen on images, the rule picks a setting that loses on images-val (shown): images has no
     small pictures, so it cannot see what enlarging them costs.
Cost: wall time of the run over the 25 images per image (process start and model load included),
and, side by side, interleaved rounds of the default, the preset and 0.8.0's preset.

  scripts/accuracy-tables.py                      # ../shared beside the checkout, .build/release/posekit
  scripts/accuracy-tables.py --posekit P --shared DIR --rounds 5 --json raw.json
"""
import argparse, itertools, json, os, statistics, subprocess, sys, tempfile, time

DEFAULT = "default (513, stride 16)"
OLD_PRESET = "0.8.0's --accurate (769+609, flip, stride 8)"


def candidates():
    """(name, options), the default first. The grid: sizes × upscale limit × stride × flip, then
    single settings: 0.8.0's cap of 10 poses and preset, the NMS radius scaled with the input."""
    grid = [(DEFAULT, [])]
    plans = [[513], [641], [769], [897], [641, 513], [769, 513], [897, 513]]
    for sizes, upscale, stride, flip in itertools.product(plans, [None, 1, 1.5, 2], [16, 8], [False, True]):
        options, words = [], ["+".join(map(str, sizes))]
        if sizes != [513]:
            options += ["--input-size", str(sizes[0])] if len(sizes) == 1 else ["--input-sizes", ",".join(map(str, sizes))]
        if upscale is not None:
            options += ["--max-upscale", str(upscale)]
            words.append(f"upscale ≤ {upscale}")
        if stride == 8:
            options += ["--output-stride", "8"]
            words.append("stride 8")
        if flip:
            options.append("--flip")
            words.append("flip")
        if options:
            grid.append((", ".join(words), options))
    grid.append(("513, max 10 poses (0.8.0's cap)", ["--max-poses", "10"]))
    grid.append((OLD_PRESET, ["--input-sizes", "769,609", "--flip", "--output-stride", "8"]))
    for sizes in ([641], [769], [897], [641, 513], [769, 513], [897, 513]):
        radius = round(20 * sizes[0] / 513)
        flag = ["--input-size", str(sizes[0])] if len(sizes) == 1 else ["--input-sizes", ",".join(map(str, sizes))]
        grid.append((f"{'+'.join(map(str, sizes))}, upscale ≤ 1.5, stride 8, NMS radius {radius}",
                     flag + ["--max-upscale", "1.5", "--output-stride", "8", "--nms-radius", str(radius)]))
    return grid


# Short names of the image sources (the ground truth's `source` field starts with one of these).
SOURCE_NAMES = [("COCO", "COCO"), ("MPII", "MPII"), ("Human3.6M", "H36M"), ("AI Challenger", "AIC"),
                ("sub-JHMDB", "JHMDB"), ("LV-MHP", "MHP"), ("MPI-INF-3DHP", "3DHP")]


class ImageSet:
    """A shared image folder: its ground truth, its PPM images in ground-truth order, by source."""

    def __init__(self, name, folder):
        self.name, self.truth = name, os.path.join(folder, "ground_truth.json")
        with open(self.truth) as f:
            self.images = json.load(f)["images"]
        ppms = {os.path.splitext(f)[0]: f for f in os.listdir(folder) if f.endswith(".ppm")}
        self.paths, self.sources = [], {}
        for image in self.images:
            path = os.path.join(folder, ppms[os.path.splitext(os.path.basename(image["file_name"]))[0]])
            self.paths.append(path)
            text = image.get("source", "")
            source = next((short for prefix, short in SOURCE_NAMES if text.startswith(prefix)), text.split(" ")[0] or "?")
            self.sources.setdefault(source, []).append(path)


def merged_truth(sets, directory):
    """One ground truth holding every set's images and people (their ids must not collide)."""
    merged = {"images": [], "annotations": []}
    for image_set in sets:
        with open(image_set.truth) as f:
            truth = json.load(f)
        merged["categories"] = truth["categories"]
        merged["images"] += truth["images"]
        merged["annotations"] += truth["annotations"]
    for key in ("images", "annotations"):
        ids = [entry["id"] for entry in merged[key]]
        if len(ids) != len(set(ids)):
            sys.exit(f"accuracy-tables: the sets' {key} ids collide, so they cannot be merged")
    path = os.path.join(directory, "union_ground_truth.json")
    with open(path, "w") as f:
        json.dump(merged, f)
    return path


def run(arguments):
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"accuracy-tables: {' '.join(arguments)} failed: {result.stderr.strip()}")
    return result.stdout


def find_poses(posekit, options, paths):
    """`posekit pose` JSON Lines of `paths` (one process) and its wall time in seconds."""
    start = time.monotonic()
    lines = run([posekit, "pose"] + options + paths).splitlines()
    return lines, time.monotonic() - start


def score(posekit, truth, lines, paths, directory):
    """`posekit eval --poses` of the lines whose source is one of `paths`."""
    wanted = set(paths)
    path = os.path.join(directory, "poses.jsonl")
    with open(path, "w") as f:
        f.write("\n".join(line for line in lines if json.loads(line)["source"] in wanted) + "\n")
    return json.loads(run([posekit, "eval", "--json", "--ground-truth", truth, "--poses", path]))["AP"]


def choose(scores, set_name):
    """The rule, on one set's scores only: the best AP there; ties go to the cheaper setting."""
    return max(scores, key=lambda name: (scores[name][set_name], -scores[name]["seconds"]))


def three(x):
    return f"{x:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--posekit", default=os.path.join(root, ".build/release/posekit"))
    parser.add_argument("--shared", default=os.path.join(os.path.dirname(root), "shared"))
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds of the cost comparison (default 3)")
    parser.add_argument("--json", help="also write every score to this file")
    args = parser.parse_args()
    sets = [ImageSet(name, os.path.join(args.shared, "media", name)) for name in ("images", "images-val")]
    all_paths = [p for s in sets for p in s.paths]
    grid = candidates()
    options_of = dict(grid)

    with tempfile.TemporaryDirectory(prefix="posekit-accuracy-") as directory:
        union = merged_truth(sets, directory)
        scores = {}
        for name, options in grid:
            lines, seconds = find_poses(args.posekit, options, all_paths)
            entry = {s.name: score(args.posekit, s.truth, lines, s.paths, directory) for s in sets}
            entry["union"] = score(args.posekit, union, lines, all_paths, directory)
            entry["sources"] = {(s.name, source): score(args.posekit, s.truth, lines, paths, directory)
                                for s in sets for source, paths in s.sources.items()}
            entry["seconds"] = seconds / len(all_paths)
            scores[name] = entry
            print(f"  {name}: {three(entry['images'])} / {three(entry['images-val'])} / union {three(entry['union'])}, "
                  f"{entry['seconds'] * 1000:.0f} ms/image", file=sys.stderr)

        folds = [(a.name, b.name, choose(scores, a.name)) for a, b in ((sets[0], sets[1]), (sets[1], sets[0]))]
        preset = folds[1][2]
        # Every reported setting: `posekit eval` on the images gives what `eval --poses` gave.
        for name in {DEFAULT, preset, folds[0][2]} & set(scores):
            for s in sets:
                direct = json.loads(run([args.posekit, "eval", "--json", "--ground-truth", s.truth] + options_of[name] + s.paths))["AP"]
                if abs(direct - scores[name][s.name]) > 5e-4:
                    print(f"accuracy-tables: warning: {name} on {s.name}: eval on the images {direct:.4f}, "
                          f"on its poses {scores[name][s.name]:.4f}", file=sys.stderr)

        # `--accurate` must be the setting chosen here.
        for s in sets:
            accurate = json.loads(run([args.posekit, "eval", "--json", "--accurate", "--ground-truth", s.truth] + s.paths))["AP"]
            if abs(accurate - scores[preset][s.name]) > 5e-4:
                print(f"accuracy-tables: warning: --accurate scores {accurate:.4f} on {s.name}, the setting chosen "
                      f"({preset}) {scores[preset][s.name]:.4f}: --accurate is not what this protocol chooses", file=sys.stderr)

        compared = [DEFAULT, preset, OLD_PRESET]
        times = {name: [] for name in compared}
        for _ in range(args.rounds):
            for name in compared:
                times[name].append(find_poses(args.posekit, options_of[name], all_paths)[1] / len(all_paths))

    base = scores[DEFAULT]
    out = ["Chosen on one set, reported on the other (the rule: the best AP on the choosing set):\n",
           "| chosen on | setting chosen | AP there | reported on | **AP there** | default there | gain |",
           "|---|---|---|---|---|---|---|"]
    for chosen_on, reported_on, chosen in folds:
        gain = scores[chosen][reported_on] - base[reported_on]
        out.append(f"| {chosen_on} | {chosen} | {three(scores[chosen][chosen_on])} | {reported_on} | "
                   f"**{three(scores[chosen][reported_on])}** | {three(base[reported_on])} | {gain:+.3f} |")

    def row(name, label=None):
        s = scores[name]
        cells = []
        for key in ("images", "images-val", "union"):
            text = three(s[key])
            if name != DEFAULT and s[key] < base[key]:
                text += " (loss)"
            cells.append(text)
        return f"| {label or name} | " + " | ".join(cells) + f" | {s['seconds'] * 1000:.0f} ms | {s['seconds'] / base['seconds']:.1f}x |"

    header = ["| setting | images (13) | images-val (12) | union (25) | time/image | vs default |", "|---|---|---|---|---|---|"]
    out += ["\nThe default, the preset chosen on images-val and 0.8.0's preset on every set:\n"] + header
    out += [row(DEFAULT), row(preset, f"**{preset} (`--accurate`)**"), row(OLD_PRESET)]
    names = [(s.name, source) for s in sets for source in s.sources]
    out += ["\nAP by image source (each source's images scored on their own):\n",
            "| setting | " + " | ".join(f"{source} ({set_name})" for set_name, source in names) + " |",
            "|---|" + "---|" * len(names)]
    for name in dict.fromkeys([DEFAULT, preset, folds[0][2], OLD_PRESET]):
        out.append(f"| {name} | " + " | ".join(three(scores[name]["sources"][key]) for key in names) + " |")
    out += [f"\nCost side by side: {args.rounds} interleaved rounds of `posekit pose` over the 25 images, median wall time per image:\n",
            "| setting | time/image | vs default |", "|---|---|---|"]
    median_default = statistics.median(times[DEFAULT])
    for name in compared:
        median = statistics.median(times[name])
        out.append(f"| {name} | {median * 1000:.0f} ms | {median / median_default:.1f}x |")
    out += [f"\nEvery candidate ({len(scores)}; each scored once, time from that run):\n"] + header
    out += [row(name) for name in scores]
    print("\n".join(out))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"scores": {k: {**v, "sources": {f"{a}/{b}": x for (a, b), x in v["sources"].items()}}
                                  for k, v in scores.items()},
                       "folds": folds, "preset": preset, "seconds_per_image": times}, f, indent=1)


if __name__ == "__main__":
    main()
