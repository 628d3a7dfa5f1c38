#!/usr/bin/env python3
"""ONNX Runtime's bare forward pass on request, for `posekit bench pipeline --compare-ort`.

Builds the graph with the peer script's own builder (ort_peer.py, beside the published weights in
../shared/tools/peers) and the peer's session options and input (intra-op threads as asked, one
inter-op thread, all graph optimizations, uniform(-1, 1) noise from seed 0), runs 5 warm-up passes
and prints `ready`. Then, for each line `run N` on stdin, it times N passes and prints
`median_ms=<x> min_ms=<y>`; it exits at the end of stdin. One session for the whole benchmark, so
the rounds of ONNX Runtime can sit between PoseKit's rounds at a fraction of a second's distance,
instead of a fresh process (and graph build) for each.

usage: ort-forward-server.py PEER_DIR WEIGHTS --size 257 --threads 2
"""
import sys
import time

import numpy as np

from ort_peer_session import make_session, parser

a = parser(__doc__, threads=2).parse_args()
session, x = make_session(a)
for _ in range(5):
    session.run(None, {'input': x})
print('ready', flush=True)

for line in sys.stdin:
    words = line.split()
    if len(words) != 2 or words[0] != 'run' or not words[1].isdigit() or int(words[1]) < 1:
        print(f'error: expected "run N", got {line.strip()!r}', flush=True)
        continue
    times = []
    for _ in range(int(words[1])):
        start = time.perf_counter()
        session.run(None, {'input': x})
        times.append((time.perf_counter() - start) * 1000)
    print(f'median_ms={np.median(times):.3f} min_ms={min(times):.3f}', flush=True)
