"""The ONNX Runtime session PoseKit's benchmarks compare against, shared by ort-forward-server.py
and ort-layer-profile.py: the graph built by the peer script beside the published weights
(ort_peer.py in ../shared/tools/peers), its session options (intra-op threads as asked, one
inter-op thread, all graph optimizations) and its input (uniform(-1, 1) noise from seed 0).
"""
import argparse
import sys


def parser(description, threads):
    """Arguments both scripts take: PEER_DIR WEIGHTS --size N --threads N."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument('peer_dir')
    ap.add_argument('weights')
    ap.add_argument('--size', type=int, default=257)
    ap.add_argument('--threads', type=int, default=threads)
    return ap


def make_session(a, profile_prefix=None):
    """(session, input) for parsed arguments `a`; profiling on when `profile_prefix` is given."""
    sys.path.insert(0, a.peer_dir)
    import numpy as np
    import onnxruntime as ort
    import ort_peer

    model = ort_peer.build(ort_peer.rf.load_any(a.weights), a.size)
    options = ort.SessionOptions()
    options.intra_op_num_threads = a.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if profile_prefix is not None:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    session = ort.InferenceSession(model.SerializeToString(), options, providers=['CPUExecutionProvider'])
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, a.size, a.size)).astype(np.float32)
    return session, x
