#!/usr/bin/env python3
"""ONNX Runtime's forward pass layer by layer, for `posekit bench model --layers --compare-ort`.

Builds the graph with the peer script's own builder (ort_peer.py, beside the published weights
in ../shared/tools/peers), runs it with ORT's profiler on, and prints one line per graph node in
execution order: `node <name> <op> <best ms> <median ms>`, then `run <best ms> <median ms>` for
whole passes. The first `warmup` passes are left out.

usage: ort-layer-profile.py PEER_DIR WEIGHTS --size 257 --threads 1 --runs 50
"""
import collections
import json
import os
import tempfile

import numpy as np

from ort_peer_session import make_session, parser

ap = parser(__doc__, threads=1)
ap.add_argument('--runs', type=int, default=50)
ap.add_argument('--warmup', type=int, default=5)
a = ap.parse_args()

with tempfile.TemporaryDirectory() as directory:
    session, x = make_session(a, profile_prefix=os.path.join(directory, 'ort'))
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
