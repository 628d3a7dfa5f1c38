"""The request loop both peer servers share (ort-forward-server.py, litert-forward-server.py).

`serve(run_once)` runs 5 warm-up passes, prints `ready`, then for each line `run N` on stdin times
N passes of `run_once` and prints `median_ms=<x> min_ms=<y> cpu_ms=<z>`, z the median CPU time of the
process per pass (all its threads: on a busy host it leaves out the time spent descheduled, which wall
time counts); it returns at the end of stdin.
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
        times, cpu = [], []
        for _ in range(int(words[1])):
            start, start_cpu = time.perf_counter(), time.process_time()
            run_once()
            times.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        print(f'median_ms={np.median(times):.3f} min_ms={min(times):.3f} cpu_ms={np.median(cpu):.3f}', flush=True)
