"""The request loop both peer servers share (ort-forward-server.py, litert-forward-server.py).

`serve(run_once)` runs 5 warm-up passes, prints `ready`, then for each line `run N` on stdin times
N passes of `run_once` and prints `median_ms=<x> min_ms=<y>`; it returns at the end of stdin.
"""
import sys
import time

import numpy as np


def serve(run_once):
    for _ in range(5):
        run_once()
    print('ready', flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != 'run' or not words[1].isdigit() or int(words[1]) < 1:
            print(f'error: expected "run N", got {line.strip()!r}', flush=True)
            continue
        times = []
        for _ in range(int(words[1])):
            start = time.perf_counter()
            run_once()
            times.append((time.perf_counter() - start) * 1000)
        print(f'median_ms={np.median(times):.3f} min_ms={min(times):.3f}', flush=True)
