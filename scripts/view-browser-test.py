#!/usr/bin/env python3
"""`posekit view` in a real browser: Debian's headless Chromium, driven through chromium-driver
(W3C WebDriver over HTTP, Python's standard library only).

What it checks, from the page itself (`make test-view-browser`):
  1. every frame: a shared clip, trimmed to a Y4M file, served with `--every-frame` (each frame
     processed in order: the pipeline paces the source, so the results are `posekit actions`'
     exactly and nothing depends on timing) --
     - frames advance on the page;
     - the wireframe is drawn where the command's own JSON Lines put the keypoints: the canvas
       pixel under each keypoint the page draws has its side's colour, and control points away
       from every drawn point and bone do not; the page's frame is the JSON line's;
     - the action label and repetition count the page ends with are those of `posekit actions`
       on the same clip, and its Summary rows are `actions`' summary and add up to its total;
     - the JSON Lines end with that summary;
     - Ctrl-C (SIGINT) ends the command: exit 130, the JSON complete;
  2. live: the same clip played as a live source at its own frame rate (the default) --
     - frames advance, the JSON's frames are in order, late frames are reported as dropped;
     - a second browser tab, then a reload of the first: both show frames;
     - SIGINT while streaming ends posekit and its ffmpeg child, the summary written, exit 130.
Polling with a time limit only guards against a hang: no outcome depends on a wait's length.

  scripts/view-browser-test.py [--posekit PATH] [--shared DIR] [--screenshot OUT.png --source FILE]
"""
import argparse
import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 240  # seconds: a safety net against a hang, never an outcome


def fail(message):
    print(f"view-browser-test: FAIL: {message}", file=sys.stderr)
    raise SystemExit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"view-browser-test: ok: {message}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebDriver:
    """The few W3C WebDriver commands the test needs, on a chromium-driver it starts."""

    def __init__(self):
        self.port = free_port()
        self.process = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        poll(lambda: self._ready(), "chromedriver to start")
        options = {"binary": "/usr/bin/chromium",
                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=1400,900", "--force-device-scale-factor=1", "--hide-scrollbars"]}
        answer = self.call("POST", "/session", {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}})
        self.session = answer["sessionId"]

    def _ready(self):
        try:
            return self.call("GET", "/status").get("ready", False)
        except OSError:
            return False

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())["value"]

    def go(self, url):
        self.call("POST", f"/session/{self.session}/url", {"url": url})

    def script(self, source, *args):
        return self.call("POST", f"/session/{self.session}/execute/sync", {"script": source, "args": list(args)})

    def new_tab(self):
        # A window, not a tab: a background tab may not draw (requestAnimationFrame pauses there).
        handle = self.call("POST", f"/session/{self.session}/window/new", {"type": "window"})["handle"]
        return handle

    def switch(self, handle):
        self.call("POST", f"/session/{self.session}/window", {"handle": handle})

    def window(self):
        return self.call("GET", f"/session/{self.session}/window")

    def refresh(self):
        self.call("POST", f"/session/{self.session}/refresh", {})

    def screenshot(self, path):
        with open(path, "wb") as out:
            out.write(base64.b64decode(self.call("GET", f"/session/{self.session}/screenshot")))

    def quit(self):
        try:
            self.call("DELETE", f"/session/{self.session}")
        except Exception:
            pass
        self.process.terminate()
        self.process.wait(timeout=30)


def poll(condition, what, limit=LIMIT):
    start = time.monotonic()
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() - start > limit:
            fail(f"timed out waiting for {what} (a hang)")
        time.sleep(0.05)


class View:
    """`posekit view` running in the background, its URL read from its first stderr line."""

    def __init__(self, posekit, arguments, json_path):
        self.stderr_path = json_path + ".stderr"
        self.stderr = open(self.stderr_path, "w+")
        self.json_path = json_path
        # The JSON Lines on stdout, a file read while it grows (--json FILE appears only when committed).
        self.stdout = open(json_path, "w")
        self.process = subprocess.Popen([posekit, "view", "--listen", "127.0.0.1:0"] + arguments,
                                        stdout=self.stdout, stderr=self.stderr)
        def url():
            if self.process.poll() is not None:
                fail(f"posekit view exited {self.process.returncode}: {self.log()}")
            match = re.search(r"posekit: view: (http://\S+/)", self.log())
            return match.group(1) if match else None
        self.url = poll(url, "posekit view to print its address")

    def log(self):
        with open(self.stderr_path) as f:
            return f.read()

    def lines(self):
        """The complete lines so far (a line still being written is left for later)."""
        with open(self.json_path) as f:
            text = f.read()
        return [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines() if line.strip()]

    def interrupt(self):
        """SIGINT; the exit status and the seconds it took to exit."""
        start = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(timeout=LIMIT)
        return status, time.monotonic() - start


def side_of(name):
    return "left" if name.startswith("left") else "right" if name.startswith("right") else "center"


def segment_distance(p, a, b):
    ax, ay = a; bx, by = b; px, py = p
    dx, dy = bx - ax, by - ay
    length = dx * dx + dy * dy
    t = 0 if length == 0 else max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / length))
    return ((px - ax - t * dx) ** 2 + (py - ay - t * dy) ** 2) ** 0.5


def check_wireframe(driver, view):
    """The frame on the canvas (frozen) against the command's JSON line for it."""
    drawn = driver.script("posekitView.freeze(); const d = posekitView.lastDrawn;"
                          "return {frame: d.frame, width: d.width, height: d.height, pose: d.scene.pose, hello: posekitView.hello};")
    frame = drawn["frame"]
    lines = {line["frame"]: line for line in view.lines() if "type" not in line}
    check(frame in lines, f"the page's frame {frame} is a frame of the JSON Lines")
    line = lines[frame]
    check(line["poses"] == drawn["pose"]["poses"], f"the page drew frame {frame}'s people as the JSON line gives them")
    hello = drawn["hello"]
    colours = hello["colours"]
    minimum = hello["min_score"]
    width = max(2, round(min(drawn["width"], drawn["height"]) / 180))
    radius = width * 1.4
    points, controls, segments, dots = [], [], [], []
    for pose in line["poses"]:
        keypoints = pose["keypoints"]
        names = [k["part"] for k in keypoints]
        set_name = next(n for n, s in hello["sets"].items() if s["names"] == names)
        for a, b in hello["sets"][set_name]["edges"]:
            if keypoints[a]["score"] >= minimum and keypoints[b]["score"] >= minimum:
                segments.append(((keypoints[a]["x"], keypoints[a]["y"]), (keypoints[b]["x"], keypoints[b]["y"])))
        for k in keypoints:
            if k["score"] >= minimum and 2 <= k["x"] < drawn["width"] - 2 and 2 <= k["y"] < drawn["height"] - 2:
                dots.append((k["x"], k["y"]))
                points.append((k["x"], k["y"], colours[side_of(k["part"])]))
    check(len(points) >= 5, f"frame {frame} has {len(points)} keypoints to look at")
    # Control points: near the person, but clear of every drawn point and bone (and the id label's row).
    for x, y, _ in points:
        for dx, dy in [(6, 0), (-6, 0), (0, 6), (0, -6), (5, 5), (-5, 5)]:
            c = (x + dx * radius, y + dy * radius)
            if not (0 <= c[0] < drawn["width"] and 0 <= c[1] < drawn["height"]):
                continue
            if all(((c[0] - d[0]) ** 2 + (c[1] - d[1]) ** 2) ** 0.5 > 3 * radius for d in dots) and \
               all(segment_distance(c, a, b) > 2 * width for a, b in segments):
                controls.append(c)
                break
    check(len(controls) >= 3, f"{len(controls)} control points clear of the wireframe")
    coordinates = [[int(x), int(y)] for x, y, _ in points] + [[int(x), int(y)] for x, y in controls]
    pixels = driver.script("const c = document.getElementById('view').getContext('2d');"
                           "return arguments[0].map(([x, y]) => Array.from(c.getImageData(x, y, 1, 1).data));", coordinates)
    # A keypoint another dot or bone crosses may be drawn over (which one is on top is the page's
    # drawing order, not a fault): only the keypoints clear of every other dot and bone are judged.
    def clear(x, y):
        others = [d for d in dots if (d[0], d[1]) != (x, y)]
        return all(((x - d[0]) ** 2 + (y - d[1]) ** 2) ** 0.5 > 2 * radius for d in others) and \
            all(segment_distance((x, y), a, b) > radius + width for a, b in segments if (x, y) not in (a, b))
    judged = [(point, pixel) for point, pixel in zip(points, pixels) if clear(point[0], point[1])]
    check(len(judged) >= 5, f"{len(judged)} of {len(points)} keypoints of frame {frame} clear of the other dots and bones")
    on = sum(1 for (x, y, colour), pixel in judged if pixel[:3] == colour)
    for (x, y, colour), pixel in judged:
        if pixel[:3] != colour:
            print(f"view-browser-test: keypoint at ({x:.1f}, {y:.1f}): canvas {pixel[:3]}, its side's colour {colour}")
    wireframe = [colours[s] for s in ("left", "right", "center")]
    off = sum(1 for pixel in pixels[len(points):] if pixel[:3] in wireframe)
    check(on == len(judged), f"{on} of {len(judged)} keypoints of frame {frame} clear of the others have their side's colour on the canvas")
    check(off <= 0.1 * len(controls), f"{off} of {len(controls)} control points away from the wireframe have a wireframe colour")
    driver.script("posekitView.unfreeze();")


def every_frame(posekit, driver, clip, work):
    reference = subprocess.run([posekit, "actions", clip], capture_output=True, text=True, check=True).stdout
    events = [json.loads(line) for line in reference.splitlines() if line.strip()]
    predictions = [e for e in events if e["type"] == "prediction"]
    summary = events[-1]
    check(summary["type"] == "summary" and predictions, "posekit actions gives predictions and a summary")

    view = View(posekit, ["--every-frame", clip], os.path.join(work, "every.jsonl"))
    driver.go(view.url)
    seen = []
    def advanced():
        frame = driver.script("return posekitView.lastDrawn ? posekitView.lastDrawn.frame : null;")
        if frame is not None and (not seen or frame > seen[-1]):
            seen.append(frame)
        return len(seen) >= 4
    poll(advanced, "frames to advance on the page")
    check(seen == sorted(seen) and len(set(seen)) >= 4, f"frames advance on the page: {seen}")
    check_wireframe(driver, view)
    poll(lambda: driver.script("return posekitView.ended !== null;"), "the end of the clip on the page")
    page = driver.script("""
        const rows = Array.from(document.querySelectorAll('#summary tbody tr')).map((r) =>
            ({label: r.dataset.label, seconds: Number(r.cells[1].dataset.value), reps: r.cells[2].dataset.value}));
        return {label: posekitView.lastAction.label, text: document.getElementById('action').textContent,
                reps: Number(document.getElementById('reps').dataset.count), counts: posekitView.lastAction.counts,
                rows: rows, total: Number(document.getElementById('total-seconds').dataset.value),
                totalReps: Number(document.getElementById('total-reps').dataset.value),
                status: document.getElementById('status').textContent};""")
    last = predictions[-1]
    check(page["label"] == last["label"] and page["text"] == last["label"].replace("_", " "),
          f"the page's action is posekit actions' last prediction: {page['text']!r}")
    expected_reps = summary["reps"].get(last["label"], 0)
    check(page["reps"] == expected_reps, f"the page counts {page['reps']} repetitions of {last['label']}, as posekit actions")
    check({r["label"]: round(r["seconds"], 3) for r in page["rows"] if r["seconds"] > 0} == summary["seconds"],
          f"the Summary's seconds are posekit actions': {summary['seconds']}")
    check(all(r["reps"] == "" or int(r["reps"]) == summary["reps"][r["label"]] for r in page["rows"])
          and {r["label"] for r in page["rows"] if r["reps"] != ""} == set(summary["reps"]),
          f"the Summary's repetitions are posekit actions': {summary['reps']}")
    check(abs(sum(r["seconds"] for r in page["rows"]) - page["total"]) < 1e-6 and page["totalReps"] == sum(summary["reps"].values()),
          f"the Summary adds up: {page['total']:.3f} s, {page['totalReps']} repetitions")
    check(page["status"] == "source ended", "the page says the source has ended")
    lines = view.lines()
    check(lines[-1] == summary, "the JSON Lines end with posekit actions' summary")
    check([l for l in lines if l.get("type") == "prediction"] == predictions, "the JSON Lines' predictions are posekit actions'")
    frames = [l["frame"] for l in lines if "type" not in l]
    check(frames == list(range(len(frames))) and len(frames) == summary["frames"], f"every frame has its line ({len(frames)})")
    status, seconds = view.interrupt()
    check(status == 130 and "stopped by SIGINT" in view.log(), f"SIGINT after the end: exit 130 in {seconds:.2f} s")
    check(view.lines() == lines, "the JSON Lines are unchanged by the stop")


def live(posekit, driver, clip, work):
    view = View(posekit, [clip], os.path.join(work, "live.jsonl"))
    first = driver.window()
    driver.go(view.url)
    poll(lambda: (driver.script("return posekitView.framesDrawn;") or 0) >= 3, "live frames on the first tab")
    second = driver.new_tab()
    driver.switch(second)
    driver.go(view.url)
    poll(lambda: (driver.script("return posekitView.framesDrawn;") or 0) >= 3, "live frames on a second tab")
    driver.switch(first)
    driver.refresh()
    poll(lambda: (driver.script("return posekitView.framesDrawn;") or 0) >= 3, "live frames after a reload")
    viewers = driver.script("return Number(document.getElementById('viewers').textContent);")
    check(viewers == 2, f"two viewers after a reload ({viewers})")
    before = view.lines()
    check(len(before) > 0, "the JSON Lines are written while viewers watch")
    children = subprocess.run(["pgrep", "-P", str(view.process.pid)], capture_output=True, text=True).stdout.split()
    status, seconds = view.interrupt()
    check(status == 130, f"SIGINT while streaming: exit {status} in {seconds:.2f} s")
    check(seconds < 5, f"posekit stopped within {seconds:.2f} s of SIGINT")
    lines = view.lines()
    frames = [l["frame"] for l in lines if "type" not in l]
    check(frames == sorted(frames) and len(set(frames)) == len(frames), f"{len(frames)} frame lines, in order")
    check(lines[-1]["type"] == "summary" and lines[-1]["frames"] == len(frames), "the JSON ends with the summary of the frames seen")
    check(children and all(not os.path.exists(f"/proc/{c}") for c in children), f"ffmpeg ({children}) ended with posekit")
    print(f"view-browser-test: live: {len(frames)} frames processed; posekit said: "
          + " | ".join(l for l in view.log().splitlines() if "dropped" in l or "stopped" in l))


def trimmed(shared, work, seconds):
    """The squat clip's first `seconds` s as a Y4M file (a regular file: --every-frame reads it in order)."""
    clip = os.path.join(shared, "media/videos/yuyoujiang_test_video__squat.mp4")
    out = os.path.join(work, "squats.y4m")
    subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", clip, "-t", str(seconds), "-an",
                    "-vf", "scale='min(640,iw)':-2,format=yuv420p", "-f", "yuv4mpegpipe", out], check=True)
    return clip, out


def screenshot(posekit, driver, source, out, work):
    """The docs' picture: the page on `source` (a clip whose licence allows it) once it has ended."""
    view = View(posekit, ["--every-frame", source], os.path.join(work, "shot.jsonl"))
    driver.go(view.url)
    poll(lambda: driver.script("return posekitView.ended !== null && posekitView.framesDrawn > 0;"), "the clip's end")
    driver.screenshot(out)
    view.interrupt()
    print(f"view-browser-test: wrote {out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--posekit", default=os.path.join(ROOT, ".build/release/posekit"))
    parser.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    parser.add_argument("--seconds", type=float, default=7)
    parser.add_argument("--screenshot", help="only write the page's screenshot here (with --source)")
    parser.add_argument("--source", help="the clip for --screenshot")
    args = parser.parse_args()
    driver = WebDriver()
    try:
        with tempfile.TemporaryDirectory() as work:
            if args.screenshot:
                screenshot(args.posekit, driver, args.source, args.screenshot, work)
                return
            mp4, clip = trimmed(args.shared, work, args.seconds)
            every_frame(args.posekit, driver, clip, work)
            live(args.posekit, driver, mp4, work)
    finally:
        driver.quit()
    print("view-browser-test: 1 passed, 0 failed")


if __name__ == "__main__":
    main()
