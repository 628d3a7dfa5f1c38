#!/usr/bin/env python3
"""MediaPipe's own hands on a clip (the legacy `hands` solution, video mode), as `posekit hands` JSON Lines, for
scripts/hand-identity.py (docs/hands.md, "Hands on video").

usage: MP_PYTHON scripts/mediapipe-hands-video.py CLIP [--frames N] [--max-hands 2] > mediapipe.jsonl

mediapipe 0.10.14, `mp.solutions.hands.Hands(static_image_mode=False, max_num_hands, model_complexity=1)` on the
clip's frames decoded by ffmpeg as rgb24. MediaPipe gives hands no ids: a hand takes the id of the previous frame's
hand whose 21 points lie nearest on average if that is within half the hand's size (each id once), else a new id.
"handedness" is the person's own hand (MediaPipe's label assumes a mirrored image: its "Left" is the right hand),
"handedness_score" MediaPipe's score of its label.
"""
import json, subprocess, sys

import numpy as np

PALM = [(0, 5), (0, 9), (0, 17), (5, 17)]
NAMES = ["wrist", "thumbCMC", "thumbMP", "thumbIP", "thumbTip", "indexMCP", "indexPIP", "indexDIP", "indexTip",
         "middleMCP", "middlePIP", "middleDIP", "middleTip", "ringMCP", "ringPIP", "ringDIP", "ringTip",
         "littleMCP", "littlePIP", "littleDIP", "littleTip"]


def frames(path, n):
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height",
                            "-of", "csv=p=0", path], capture_output=True, text=True).stdout.strip().split(",")
    w, h = int(probe[0]), int(probe[1])
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         stdout=subprocess.PIPE)
    for _ in range(n):
        b = p.stdout.read(w * h * 3)
        if len(b) < w * h * 3:
            break
        yield np.frombuffer(b, np.uint8).reshape(h, w, 3)
    p.kill(); p.wait()


def main():
    import mediapipe as mp
    args = sys.argv[1:]
    n = int(args[args.index("--frames") + 1]) if "--frames" in args else 300
    most = int(args[args.index("--max-hands") + 1]) if "--max-hands" in args else 2
    det = mp.solutions.hands.Hands(static_image_mode=False, max_num_hands=most, model_complexity=1)
    previous, next_id = [], 1
    for index, f in enumerate(frames(args[0], n)):
        H, W = f.shape[:2]
        r = det.process(f)
        hands = []
        for lm, cl in zip(r.multi_hand_landmarks or [], r.multi_handedness or []):
            p = np.array([[q.x * W, q.y * H] for q in lm.landmark])
            c = cl.classification[0]
            hands.append({"points": p, "handedness": "right" if c.label == "Left" else "left",
                          "handedness_score": c.score})
        taken = set()
        for hand in hands:
            size = max(np.hypot(*(hand["points"][a] - hand["points"][b])) for a, b in PALM)
            best = None
            for pid, pp in previous:
                d = np.mean(np.hypot(*(hand["points"] - pp).T))
                if pid not in taken and d <= 0.5 * size and (best is None or d < best[0]):
                    best = (d, pid)
            if best:
                hand["id"] = best[1]
            else:
                hand["id"] = next_id; next_id += 1
            taken.add(hand["id"])
        previous = [(h["id"], h["points"]) for h in hands]
        out = {"frame": index, "width": W, "height": H, "hands": [
            {"id": h["id"], "handedness": h["handedness"], "handedness_score": round(h["handedness_score"], 4),
             "keypoints": [{"part": NAMES[k], "x": round(float(x), 2), "y": round(float(y), 2)}
                           for k, (x, y) in enumerate(h["points"])]} for h in hands]}
        print(json.dumps(out))


if __name__ == "__main__":
    main()
