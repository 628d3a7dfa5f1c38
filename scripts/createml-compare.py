#!/usr/bin/env python3
"""Per-window labels of a Create ML action classifier next to ActionNet's on the shared clips.

    scripts/action-poses.sh ../shared POSES --no-smooth --input-size 353   # the poses `actions` sees
    scripts/createml-compare.py ../shared POSES [MODEL.mlmodel]

Runs `posekit actions --poses POSES/<clip>.jsonl` with ActionNet and with `--classifier MODEL`
(default: ../shared's ExerciseClassifier) on the same poses, and prints a Markdown table: per clip,
each classifier's window labels (counts) and how many windows are right. Right means the clip's
label (labels.json), spelled as each classifier spells it; a clip whose exercise the Create ML
model has no class for is right as its "other" class. Abstentions (no_person, low_confidence)
count as wrong.
"""
import collections, json, os, subprocess, sys

shared, poses = sys.argv[1], sys.argv[2]
model = sys.argv[3] if len(sys.argv) > 3 else os.path.join(shared, "weights/createml-exercise-classifier/ExerciseClassifier.mlmodel")
posekit = os.environ.get("POSEKIT", ".build/release/posekit")
CREATEML = {"jumping_jacks": "Jumping Jacks", "lunges": "Lunges", "burpees": "Burpees"}


def labels(args):
    out = subprocess.run([posekit, "actions"] + args, check=True, capture_output=True, text=True).stdout
    events = [json.loads(line) for line in out.splitlines()]
    return [e["label"] for e in events if e["type"] == "prediction"]


def cell(found, right):
    counts = collections.Counter(found)
    spelled = ", ".join(f"{name} {n}" for name, n in counts.most_common())
    return f"{sum(1 for x in found if x == right)}/{len(found)} ({spelled})"


totals = {"actionnet": [0, 0], "createml": [0, 0]}
print(f"| clip | truth | ActionNet: right/windows (labels) | {os.path.basename(model)}: right/windows (labels) |")
print("|---|---|---|---|")
for clip in json.load(open(os.path.join(shared, "media/videos/labels.json"))):
    name = clip["file"].rsplit(".", 1)[0]
    truth = clip["label"]
    path = os.path.join(poses, name + ".jsonl")
    ours = labels(["--poses", path])
    theirs = labels(["--classifier", model, "--poses", path])
    right_ours, right_theirs = truth, CREATEML.get(truth, "Other Action")
    for key, found, right in (("actionnet", ours, right_ours), ("createml", theirs, right_theirs)):
        totals[key][0] += sum(1 for x in found if x == right)
        totals[key][1] += len(found)
    print(f"| {name} | {truth} | {cell(ours, right_ours)} | {cell(theirs, right_theirs)} |")
a, c = totals["actionnet"], totals["createml"]
print(f"| all | | {a[0]}/{a[1]} ({100 * a[0] / a[1]:.0f}%) | {c[0]}/{c[1]} ({100 * c[0] / c[1]:.0f}%) |")
