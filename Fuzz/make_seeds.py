#!/usr/bin/env python3
"""Writes the hand-made seeds of the Core ML, window, pose-line and .npy fuzzers (Fuzz/run.sh):
a tiny Create ML-style action classifier built field by field (the shape of
Tests/ActionNetTests/HostileCreateMLModelTests.swift's), windows as .npy and JSON, pose JSON Lines
and .npy headers of every version. Usage: make_seeds.py DIR (seeds-coreml/, seeds-window/, ...)."""
import os
import struct
import sys


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field(number, wire, payload):
    return varint(number << 3 | wire) + payload


def uint(number, value):
    return field(number, 0, varint(value))


def f32(number, value):
    return field(number, 5, struct.pack("<f", value))


def msg(number, *parts):
    body = b"".join(parts)
    return field(number, 2, varint(len(body)) + body)


def string(number, text):
    data = text.encode()
    return field(number, 2, varint(len(data)) + data)


def packed_uints(number, values):
    body = b"".join(varint(v) for v in values)
    return field(number, 2, varint(len(body)) + body)


def packed_floats(number, values):
    body = struct.pack(f"<{len(values)}f", *values)
    return field(number, 2, varint(len(body)) + body)


def layer(name, inputs, output, kind, *params):
    return msg(1, string(1, name), *[string(2, i) for i in inputs], string(3, output), msg(kind, *params))


def model(frames=4, channels=2, rate="30"):
    weights = [((i % 7) * 0.01 - 0.03) for i in range(channels * frames * 3 * 18)]
    layers = [
        layer("expand", ["poses"], "e", 1125, packed_uints(1, [0])),
        layer("conv", ["e"], "c", 100, uint(1, channels), uint(2, frames), packed_uints(20, [3, 18]),
              uint(70, 1), msg(90, packed_floats(1, weights)), msg(91, packed_floats(1, [0.1] * channels))),
        layer("bn", ["c"], "b", 160, uint(1, channels), f32(10, 1e-5), msg(15, packed_floats(1, [1.0] * channels)),
              msg(16, packed_floats(1, [0.0] * channels)), msg(17, packed_floats(1, [0.0] * channels)),
              msg(18, packed_floats(1, [1.0] * channels))),
        layer("relu", ["b"], "r", 130, msg(10)),
        layer("pool", ["r"], "p", 120, uint(1, 1), packed_uints(10, [1, 1]), packed_uints(20, [1, 1]), msg(30)),
        layer("pad", ["p"], "q", 200, msg(1, f32(1, 0.0)), msg(10, msg(10, uint(1, 0), uint(2, 0)), msg(10, uint(1, 0), uint(2, 0)))),
        layer("flat", ["q"], "f", 1140, packed_uints(1, [channels])),
        layer("prob", ["f"], "labelProbability", 950, uint(1, (1 << 64) - 1)),
    ]
    description = msg(2,
                      msg(1, string(1, "poses"), msg(3, msg(5, packed_uints(1, [frames, 3, 18]), uint(2, 65568)))),
                      msg(100, string(1, "seed"), msg(100, string(1, "Target Frame Rate"), string(2, rate))))
    labels = msg(100, *[string(1, chr(ord("a") + i)) for i in range(channels)])
    classifier = msg(403, *layers, labels, uint(5, 1), string(200, "labelProbability"))
    return uint(1, 4) + description + classifier


def npy(shape, values, descr="<f4", version=1):
    dims = ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "")
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}".encode()
    preamble = 10 if version == 1 else 12
    header += b" " * ((64 - (preamble + len(header) + 1) % 64) % 64) + b"\n"
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    data = struct.pack(f"<{len(values)}{'f' if descr == '<f4' else 'd'}", *values)
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + data


def write(directory, name, data):
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def main(root):
    write(f"{root}/seeds-coreml", "tiny.mlmodel", model())
    write(f"{root}/seeds-coreml", "one-frame.mlmodel", model(frames=1, channels=3, rate="15"))
    window = [((i * 37) % 100) / 100 for i in range(2 * 54)]
    write(f"{root}/seeds-window", "two.npy", npy([2, 3, 18], window))
    write(f"{root}/seeds-window", "two-f8.npy", npy([2, 3, 18], window, descr="<f8", version=2))
    frames = [[[window[(f * 3 + r) * 18 + j] for j in range(18)] for r in range(3)] for f in range(2)]
    write(f"{root}/seeds-window", "two.json", str(frames))
    write(f"{root}/seeds-window", "exp.json", "[[" + ",".join(["[" + ",".join(["-1.5e-3"] * 18) + "]"] * 3) + "]]")
    parts = ["nose", "left_eye", "right_eye", "left_ear", "right_ear", "left_shoulder", "right_shoulder", "left_elbow",
             "right_elbow", "left_wrist", "right_wrist", "left_hip", "right_hip", "left_knee", "right_knee",
             "left_ankle", "right_ankle"]
    keypoints = ", ".join(f'{{"part": "{p}", "x": {10 + i}.5, "y": {20 + i}, "score": 0.{i % 10}}}' for i, p in enumerate(parts))
    pose = f'{{"id": 1, "score": 0.8, "box": [1, 2, 30, 40], "keypoints": [{keypoints}]}}'
    lines = [f'{{"source": "a.y4m", "frame": 0, "width": 64, "height": 48, "time": 0, "poses": [{pose}]}}',
             '{"frame": 1, "poses": []}', "", f'{{"frame": 2, "time": 0.066, "poses": [{pose}, {pose.replace(chr(34) + "id" + chr(34) + ": 1", chr(34) + "id" + chr(34) + ": 2")}]}}']
    write(f"{root}/seeds-poselines", "frames.jsonl", "\n".join(lines) + "\n")
    write(f"{root}/seeds-poselines", "noid.jsonl", f'{{"poses": [{pose.replace(chr(34) + "id" + chr(34) + ": 1, ", "")}]}}\n')
    write(f"{root}/seeds-numpy", "v1.npy", npy([2, 3], [1, 2, 3, 4, 5, 6]))
    write(f"{root}/seeds-numpy", "v2-f8.npy", npy([3], [0.5, -1, 1e300], descr="<f8", version=2))
    write(f"{root}/seeds-numpy", "v3-scalar.npy", npy([], [7], version=3))
    write(f"{root}/seeds-numpy", "4d.npy", npy([1, 2, 2, 1], [0, 1, 2, 3]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
