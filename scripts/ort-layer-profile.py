#!/usr/bin/env python3
"""ONNX Runtime's forward pass layer by layer, for `posekit bench model --layers --compare-ort`.

Builds the graph with the peer script's own builder (ort_peer.py, beside the published weights
in ../shared/tools/peers), runs it with ORT's profiler on, and prints one line per graph node in
execution order: `node <name> <op> <best ms> <median ms>`, then `run <best ms> <median ms>` for
whole passes. The first `warmup` passes are left out.

usage: ort-layer-profile.py PEER_DIR WEIGHTS --size 257 --threads 1 --runs 50
"""
import argparse
import collections
import json
import os
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument('peer_dir')
ap.add_argument('weights')
ap.add_argument('--size', type=int, default=257)
ap.add_argument('--threads', type=int, default=1)
ap.add_argument('--runs', type=int, default=50)
ap.add_argument('--warmup', type=int, default=5)
a = ap.parse_args()

sys.path.insert(0, a.peer_dir)
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402
import ort_peer  # noqa: E402

model = ort_peer.build(ort_peer.rf.load_any(a.weights), a.size)
options = ort.SessionOptions()
options.intra_op_num_threads = a.threads
options.inter_op_num_threads = 1
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
options.enable_profiling = True
with tempfile.TemporaryDirectory() as directory:
    options.profile_file_prefix = os.path.join(directory, 'ort')
    session = ort.InferenceSession(model.SerializeToString(), options, providers=['CPUExecutionProvider'])
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, a.size, a.size)).astype(np.float32)
    for _ in range(a.warmup + a.runs):
        session.run(None, {'input': x})
    with open(session.end_profiling()) as f:
        events = json.load(f)

nodes = collections.OrderedDict()
runs = []
for event in events:
    if event.get('cat') == 'Node' and event['name'].endswith('_kernel_time'):
        nodes.setdefault((event['name'][:-len('_kernel_time')], event['args'].get('op_name', '?')), []).append(event['dur'])
    elif event.get('cat') == 'Session' and event['name'] == 'model_run':
        runs.append(event['dur'])
for (name, op), durations in nodes.items():
    timed = durations[a.warmup:] or durations
    print(f'node {name} {op} {min(timed) / 1000:.4f} {np.median(timed) / 1000:.4f}')
timed = runs[a.warmup:] or runs
print(f'run {min(timed) / 1000:.4f} {np.median(timed) / 1000:.4f}')
