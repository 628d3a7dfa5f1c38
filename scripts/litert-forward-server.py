#!/usr/bin/env python3
"""The TFLite runtime's bare inference on request, for `posekit bench model --models M.pkw`.

Loads one .tflite with ai-edge-litert's Interpreter (XNNPACK, float32; the interpreter and settings
of ../shared/tools/peers/litert_peer.py), sets its input from INPUT.npy (the tensor PoseKit times,
so both engines see the same values), runs 5 warm-up inferences and prints `ready`. Then, for each
line `run N` on stdin, it times N inferences and prints `median_ms=<x> min_ms=<y>`; it exits at the
end of stdin. One interpreter for the whole benchmark, so its rounds sit between PoseKit's.

usage: litert-forward-server.py MODEL.tflite INPUT.npy --threads 1
Needs: python3 -m pip install ai-edge-litert numpy
"""
import argparse

import numpy as np
from ai_edge_litert.interpreter import Interpreter

from forward_server_loop import serve

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('model')
ap.add_argument('input')
ap.add_argument('--threads', type=int, default=1)
a = ap.parse_args()
interpreter = Interpreter(model_path=a.model, num_threads=a.threads)
interpreter.allocate_tensors()
detail = interpreter.get_input_details()[0]
x = np.load(a.input).astype(np.float32).reshape(detail['shape'])
interpreter.set_tensor(detail['index'], x)
serve(interpreter.invoke)
