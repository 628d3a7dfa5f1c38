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
from forward_server_loop import serve
from ort_peer_session import make_session, parser

a = parser(__doc__, threads=2).parse_args()
session, x = make_session(a)
serve(lambda: session.run(None, {'input': x}))
