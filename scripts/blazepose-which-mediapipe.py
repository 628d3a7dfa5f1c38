#!/usr/bin/env python3
"""Which MediaPipe: its `pose_landmark_cpu` graph against its legacy Python API `mp.solutions.pose`, and PoseKit's
BlazePose against each (docs/blazepose.md, "Which MediaPipe").

usage: MP_PYTHON scripts/blazepose-which-mediapipe.py [--posekit POSEKIT] [--images DIR]

On every PPM of media/images (and extra/person-linda.jpg, decoded by PIL and written as a PPM), static image mode,
model complexity 1, landmarks in pixels, mean and largest distance over the 33 points:
- graph: the wheel's `pose_landmark_cpu.binarypb` run by `CalculatorGraph` (as ../shared/reference/mediapipe was
  made: smoothing off, no previous landmarks);
- api: `mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1)`, a new one per image;
- api+pb2: the same in a process that imported `refine_landmarks_from_heatmap_calculator_pb2` first (the option
  `kernel_size: 7` of the graph then survives the solution's round trip through Python protobuf);
- with --posekit: `posekit pose --model blazepose` (the graph's behaviour, the default) against the graph, and
  `--blazepose-variant python-solution` against the api.
"""
import glob, json, os, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def landmarks_of(mode, paths):
    """Runs MediaPipe on `paths` in a fresh process (`mode`: graph, api, api+pb2): {path: [[x, y] x 33]} in pixels."""
    code = r'''
import json, os, sys
if sys.argv[1] == "api+pb2":
    import mediapipe.calculators.util.refine_landmarks_from_heatmap_calculator_pb2
import numpy as np
from PIL import Image
import mediapipe as mp
from mediapipe.python._framework_bindings import resource_util, calculator_graph, image_frame
from mediapipe.python import packet_creator, packet_getter
root = os.path.dirname(os.path.dirname(mp.__file__))
resource_util.set_resource_dir(root)
out = {}
for path in sys.argv[2:]:
    a = np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))); H, W = a.shape[:2]
    if sys.argv[1] == "graph":
        g = calculator_graph.CalculatorGraph(binary_graph_path=os.path.join(root, "mediapipe/modules/pose_landmark/pose_landmark_cpu.binarypb"))
        got = {}
        g.observe_output_stream("pose_landmarks", lambda n, p: None if p.is_empty() else got.__setitem__(n, packet_getter.get_proto(p)), True)
        g.start_run({"model_complexity": packet_creator.create_int(1), "smooth_landmarks": packet_creator.create_bool(False),
                     "enable_segmentation": packet_creator.create_bool(False), "smooth_segmentation": packet_creator.create_bool(False),
                     "use_prev_landmarks": packet_creator.create_bool(False)})
        g.add_packet_to_input_stream("image", packet_creator.create_image_frame(image_format=image_frame.ImageFormat.SRGB, data=a).at(33333))
        g.close()
        lm = got.get("pose_landmarks")
    else:
        with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
            lm = pose.process(a).pose_landmarks
    out[path] = None if lm is None else [[p.x * W, p.y * H] for p in lm.landmark]
print(json.dumps(out))
'''
    result = subprocess.run([sys.executable, "-c", code, mode] + paths, capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def posekit_landmarks(posekit, paths, variant):
    out = {}
    for path in paths:
        args = [posekit, "pose", "--model", "blazepose", path] + (["--blazepose-variant", variant] if variant != "graph" else [])
        line = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()[0])
        poses = line.get("poses", [])
        out[path] = [[k["x"], k["y"]] for k in poses[0]["keypoints"]] if poses else None
    return out


def distance(a, b):
    if a is None or b is None:
        return None
    d = np.hypot(*(np.array(a) - np.array(b)).T)
    return float(d.mean()), float(d.max())


def main():
    args = sys.argv[1:]
    folder = args[args.index("--images") + 1] if "--images" in args else os.path.join(HERE, "..", "..", "shared", "media", "images")
    paths = sorted(glob.glob(os.path.join(folder, "*.ppm")))
    linda = os.path.join(folder, "extra", "person-linda.jpg")
    if os.path.exists(linda):
        from PIL import Image
        ppm = os.path.join(tempfile.mkdtemp(), "person-linda.ppm")
        Image.open(linda).convert("RGB").save(ppm)
        paths.append(ppm)
    runs = {mode: landmarks_of(mode, paths) for mode in ("graph", "api", "api+pb2")}
    if "--posekit" in args:
        posekit = args[args.index("--posekit") + 1]
        runs["posekit"] = posekit_landmarks(posekit, paths, "graph")
        runs["posekit python-solution"] = posekit_landmarks(posekit, paths, "python-solution")
    pairs = [("api", "graph"), ("api+pb2", "graph")]
    if "posekit" in runs:
        pairs += [("posekit", "graph"), ("posekit python-solution", "api"), ("posekit", "api")]
    summary = {}
    for p in paths:
        row = {"image": os.path.basename(p)}
        for a, b in pairs:
            d = distance(runs[a][p], runs[b][p])
            row[f"{a} vs {b}"] = None if d is None else [round(d[0], 3), round(d[1], 2)]
            if d: summary.setdefault(f"{a} vs {b}", []).append(d)
        print(json.dumps(row))
    for k, v in summary.items():
        means = [m for m, _ in v]
        print(json.dumps({"pair": k, "images": len(v), "mean of means": round(float(np.mean(means)), 3),
                          "means": [round(min(means), 3), round(max(means), 3)], "largest": round(max(x for _, x in v), 2)}))


if __name__ == "__main__":
    main()
