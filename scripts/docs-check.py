#!/usr/bin/env python3
"""Every recipe of the documentation, run as pasted (make docs-check; .ci/run runs it).

Shell recipes: every ```sh / ```bash block of README.md and docs/*.md, one command (a logical
line: backslash continuations joined) at a time, in a scratch folder that looks like a checkout
(Weights/, scripts/, deploy/, ../shared) and holds the files recipes name (photo.jpg, clip.mp4,
workout.mp4, DIR/, list.txt, x.npy, ...: short cuts of ../shared/media, made once). `posekit` is
the built binary, first on PATH; HOME is the scratch folder's own, so a recipe that writes to
~/.local or ~/.zfunc never touches yours. An assignment (`M=...`) holds for the rest of its
block. A command passes when it exits 0 within its time limit.

Swift recipes: every ```swift block is built in one client package that depends on this checkout
by path (as docs/library.md says to), one executable target per block (a block without an import
gets `import PoseKit` and `import Foundation`, the guide's first lines); a manifest block
(`// swift-tools-version`) must load (`swift package dump-package`).

Marks, as HTML comments on the lines right before a block (the reason is printed):
  <!-- docs-check: skip REASON -->                        the whole block
  <!-- docs-check: skip "TEXT" REASON -->                 its commands containing TEXT
  <!-- docs-check: needs FLAG|FLAG "TEXT" REASON -->      ... when /proc/cpuinfo has none of the flags
  <!-- docs-check: needs-python MODULE "TEXT" REASON -->  ... when python3 cannot import MODULE
  <!-- docs-check: timeout SECONDS -->                    the block's commands may take that long (default 240)

  scripts/docs-check.py [--shared DIR] [--posekit BIN] [--jobs N] [--only TEXT] [--no-swift] [--keep]
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TIMEOUT = 240
MARK = re.compile(r'^\s*<!--\s*docs-check:\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(\s*)```(\w*)\s*$')
ASSIGNMENT = re.compile(r'^([A-Za-z_][A-Za-z0-9_]*)=(\S*)(\s+#.*)?$')


class Block:
    def __init__(self, doc, line, language, text, marks):
        self.doc, self.line, self.language, self.text, self.marks = doc, line, language, text, marks

    @property
    def where(self):
        return f"{self.doc}:{self.line}"


def parse_mark(text):
    """(kind, argument, pattern, reason) of a mark's text."""
    m = re.match(r'^(skip|needs-python|needs|timeout)\b\s*(.*)$', text)
    if not m:
        raise SystemExit(f"docs-check: unknown mark '{text}'")
    kind, rest = m.group(1), m.group(2)
    argument = None
    if kind in ("needs", "needs-python", "timeout"):
        argument, _, rest = rest.partition(" ")
    pattern = None
    q = re.match(r'^"([^"]*)"\s*(.*)$', rest)
    if q:
        pattern, rest = q.group(1), q.group(2)
    return kind, argument, pattern, rest.strip()


def blocks_of(path):
    """The fenced sh/bash/swift blocks of a Markdown file, each with the marks right before it."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        language, start = m.group(2), i
        j = i + 1
        while j < len(lines) and not re.match(r'^\s*```\s*$', lines[j]):
            j += 1
        body = [l[len(m.group(1)):] if l.startswith(m.group(1)) else l for l in lines[i + 1:j]]
        marks, k = [], start - 1
        while k >= 0 and MARK.match(lines[k]):
            marks.insert(0, parse_mark(MARK.match(lines[k]).group(1)))
            k -= 1
        if language in ("sh", "bash", "swift"):
            out.append(Block(str(path.relative_to(ROOT)), start + 1, language, "\n".join(body), marks))
        i = j + 1
    return out


def commands_of(text):
    """The block's commands: logical lines (backslash continuations joined), comments dropped."""
    commands, pending = [], ""
    for raw in text.split("\n"):
        line = raw.rstrip()
        if not pending and (not line.strip() or line.strip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line + "\n"   # the backslash-newline kept: bash joins the lines itself
            continue
        commands.append((pending + line).strip())
        pending = ""
    if pending.strip():
        commands.append(pending.strip())
    return commands


def cpu_flags():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def python_has(module):
    return subprocess.run(["python3", "-c", f"import {module}"], capture_output=True).returncode == 0


def skip_reason(block, command, flags, python_cache):
    for kind, argument, pattern, reason in block.marks:
        if pattern is not None and pattern not in command:
            continue
        if kind == "skip":
            return reason or "marked skip"
        if kind == "needs" and not (set(argument.split("|")) & flags):
            return reason or f"needs {argument}"
        if kind == "needs-python":
            if argument not in python_cache:
                python_cache[argument] = python_has(argument)
            if not python_cache[argument]:
                return reason or f"needs the Python module {argument}"
    return None


def block_timeout(block):
    for kind, argument, _, _ in block.marks:
        if kind == "timeout":
            return int(argument)
    return DEFAULT_TIMEOUT


# --- the scratch folder --------------------------------------------------------------------

def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def ffmpeg(*args):
    run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *args])


def write_npy(path, shape, values):
    """A float32 .npy (NumPy 1.0) of `values` (a bytes of little-endian floats)."""
    dims = ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % dims
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + values)


def image_tensor(image, size, scale):
    """An image as [size, size, 3] float32 values in [0, 1] (`scale` 1) or [-1, 1] (`scale` 2)."""
    raw = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-i", str(image), "-vf", f"scale={size}:{size}",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], check=True, capture_output=True).stdout
    import array
    floats = array.array("f", (b / 255 * scale - (scale - 1) for b in raw))
    return floats.tobytes()


def make_fixtures(template, shared, posekit):
    """The files recipes name, cut short from ../shared/media (made once per run)."""
    media = shared / "media"
    images = media / "images"
    template.mkdir(parents=True)
    videos = json.loads((media / "videos" / "labels.json").read_text())
    by_label = {}
    for clip in videos:
        by_label.setdefault(clip["label"], clip)
    def cut(label, seconds, out, width=480):
        clip = by_label[label]
        start = clip["trim"]["start_s"]
        ffmpeg("-ss", str(start), "-i", str(media / "videos" / clip["original"]), "-t", str(seconds), "-an",
               "-vf", f"scale='min({width},iw)':-2", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", str(out))
    shutil.copy(images / "coco_000000000785.jpg", template / "photo.jpg")
    shutil.copy(images / "coco_000000000785.ppm", template / "photo.ppm")
    ffmpeg("-i", str(images / "coco_000000000785.jpg"), str(template / "photo.png"))
    cut("jumping_jacks", 2, template / "clip.mp4")
    cut("squats", 3, template / "workout.mp4")
    shutil.copy(template / "clip.mp4", template / "long.mp4")
    (template / "clips").mkdir()
    cut("jumping_jacks", 2, template / "clips" / "jacks.mp4", width=320)
    cut("lunges", 2, template / "clips" / "lunges.mp4", width=320)
    for name in ("jacks", "lunges"):   # other names: one output per input name (--output-dir)
        ffmpeg("-i", str(template / "clips" / f"{name}.mp4"), "-t", "1", "-f", "yuv4mpegpipe", str(template / "clips" / f"{name}-raw.y4m"))
    for folder in ("DIR", "photos", "images"):
        (template / folder).mkdir()
    picked = ["coco_000000000785", "mpii_052475643", "h36m_S7_Greeting.55011271_000396"]
    for name in picked[:2]:
        shutil.copy(images / f"{name}.jpg", template / "DIR" / f"{name}.jpg")
    for name in picked:
        shutil.copy(images / f"{name}.jpg", template / "photos" / f"{name}.jpg")
        shutil.copy(images / f"{name}.ppm", template / "images" / f"{name}.ppm")
    shutil.copy(images / "ground_truth.json", template / "gt.json")
    shutil.copy(images / "ground_truth.json", template / "images" / "ground_truth.json")
    (template / "frames").mkdir()
    ffmpeg("-i", str(template / "clip.mp4"), "-frames:v", "5", "-vf", "scale=320:-2", str(template / "frames" / "f%03d.ppm"))
    (template / "list.txt").write_text("".join(f"photos/{n}.jpg\n" for n in picked[:2]))
    window = next((shared / "reference" / "createml" / "ExerciseClassifier").glob("*.npy"))
    shutil.copy(window, template / "window.npy")
    hand = image_tensor(images / "mpii_004645041.jpg", 224, 1)
    write_npy(template / "x.npy", [1, 224, 224, 3], hand)
    write_npy(template / "crop.npy", [1, 224, 224, 3], hand)
    write_npy(template / "pose-crop.npy", [1, 256, 256, 3], image_tensor(images / "coco_000000000785.jpg", 256, 1))
    with open(template / "raw.jsonl", "wb") as out:
        run([str(posekit), "pose", "--no-smooth", "--input-size", "257", str(template / "workout.mp4")], stdout=out)


def link_tree(source, target):
    """`target` as a copy of `source` made of hard links (a recipe replacing a file replaces the
    link, never the file it shares)."""
    shutil.copytree(source, target, copy_function=os.link, symlinks=True)


def make_scratch(base, template, shared, posekit, index):
    """A checkout-like folder for one block: base/NNN/posekit, with ../shared beside it."""
    folder = base / f"{index:03d}"
    folder.mkdir()
    os.symlink(shared, folder / "shared")
    work = folder / "posekit"
    link_tree(template, work)
    for entry in ("scripts", "deploy", "Sources", "Tests", "docs", "Package.swift", "Makefile", "README.md"):
        os.symlink(ROOT / entry, work / entry)
    (work / "Weights").mkdir()
    for bundle in (ROOT / "Weights").iterdir():
        if bundle.is_file():
            try:
                os.link(bundle, work / "Weights" / bundle.name)
            except OSError:
                shutil.copy(bundle, work / "Weights" / bundle.name)
    (work / "home").mkdir()
    (work / ".build" / "release").mkdir(parents=True)   # scripts that run the checkout's build find it
    os.symlink(posekit, work / ".build" / "release" / "posekit")
    return work


# --- running ---------------------------------------------------------------------------------

class Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.rows = []

    def add(self, *row):
        with self.lock:
            self.rows.append(row)
            where, command, status, detail, seconds = row
            shown = command.split("\n")[0][:110]
            line = f"{status:4}  {where}  {shown}"
            if status == "SKIP":
                line += f"  ({detail})"
            elif status == "FAIL":
                line += f"\n      {detail}"
            elif seconds is not None:
                line += f"  [{seconds:.1f} s]"
            print(line, flush=True)


def run_block(block, work, posekit_dir, flags, python_cache, results):
    env = dict(os.environ)
    env.update({"HOME": str(work / "home"), "POSEKIT_WEIGHTS_DIR": str(work / "Weights"),
                "PATH": f"{posekit_dir}:{env.get('PATH', '')}", "TERM": "dumb"})
    env.pop("XDG_DATA_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    limit = block_timeout(block)
    for number, command in enumerate(commands_of(block.text), 1):
        where = f"{block.where}#{number}"
        reason = skip_reason(block, command, flags, python_cache)
        if reason:
            results.add(where, command, "SKIP", reason, None)
            continue
        assignment = ASSIGNMENT.match(command)
        if assignment:
            value = subprocess.run(["bash", "-c", f'{assignment.group(1)}={assignment.group(2)}; printf %s "${assignment.group(1)}"'],
                                   cwd=work, env=env, capture_output=True, text=True).stdout
            env[assignment.group(1)] = value
            continue
        start = time.monotonic()
        try:
            done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=limit, start_new_session=True)
        except subprocess.TimeoutExpired as expired:
            results.add(where, command, "FAIL", f"no exit within {limit} s", time.monotonic() - start)
            continue
        seconds = time.monotonic() - start
        if done.returncode == 0:
            results.add(where, command, "ok", "", seconds)
        else:
            tail = done.stderr.decode(errors="replace").strip().split("\n")[-3:]
            results.add(where, command, "FAIL", f"exit {done.returncode}: " + " | ".join(tail), seconds)


def check_swift(blocks, base, results, shared):
    """Builds every swift block in one client package that depends on this checkout by path."""
    package = base / "swift" / "DocsSnippets"
    package.mkdir(parents=True)
    os.symlink(ROOT, base / "swift" / "posekit")
    targets = []
    for index, block in enumerate(blocks):
        where = block.where
        skip = next((reason or "marked skip" for kind, _, pattern, reason in block.marks if kind == "skip" and pattern is None), None)
        if skip:
            results.add(where, block.text.strip().split("\n")[0], "SKIP", skip, None)
            continue
        if block.text.lstrip().startswith("// swift-tools-version"):
            manifest = base / "swift" / f"manifest{index}"
            manifest.mkdir()
            (manifest / "Package.swift").write_text(block.text + "\n")
            for name in re.findall(r'Target\(name: "([^"]+)"', block.text):
                (manifest / "Sources" / name).mkdir(parents=True, exist_ok=True)
                (manifest / "Sources" / name / "main.swift").write_text("")
            os.symlink(ROOT, manifest.parent / "posekit") if not (manifest.parent / "posekit").exists() else None
            done = subprocess.run(["swift", "package", "dump-package"], cwd=manifest, capture_output=True, text=True)
            status = "ok" if done.returncode == 0 else "FAIL"
            results.add(where, "Package.swift: loads", status, done.stderr.strip().split("\n")[-1] if status == "FAIL" else "", None)
            continue
        name = "Snippet_" + re.sub(r'[^A-Za-z0-9]', "_", f"{block.doc}_{block.line}")
        source = block.text + "\n"
        if not re.search(r'^\s*import\s', source, re.M):
            source = "import PoseKit\nimport Foundation\n\n" + source
        (package / "Sources" / name).mkdir(parents=True)
        (package / "Sources" / name / "main.swift").write_text(source)
        targets.append((name, block))
    if not targets:
        return
    libraries = ["PoseKit", "Tensor", "FrameIO", "PoseCore", "Streaming", "PoseNet", "ActionNet", "ModelGraph", "TFLite", "MediaPipe"]
    dependencies = ", ".join(f'.product(name: "{name}", package: "posekit")' for name in libraries)
    products = ",\n".join(f'        .executableTarget(name: "{n}", dependencies: [{dependencies}])' for n, _ in targets)
    (package / "Package.swift").write_text(
        '// swift-tools-version: 6.0\nimport PackageDescription\n\nlet package = Package(\n    name: "DocsSnippets",\n'
        '    dependencies: [.package(path: "../posekit")],\n    targets: [\n' + products + "\n    ]\n)\n")
    start = time.monotonic()
    env = {k: v for k, v in os.environ.items() if not k.startswith("POSEKIT_")}
    done = subprocess.run(["swift", "build", "--package-path", str(package)], env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    log = done.stdout + done.stderr
    for name, block in targets:
        errors = [l for l in log.split("\n") if f"/{name}/main.swift" in l and "error:" in l]
        if errors or (done.returncode != 0 and not any("error:" in l and "/Snippet_" in l for l in log.split("\n"))):
            detail = errors[0].split("main.swift")[-1] if errors else "the package did not build: " + log.strip().split("\n")[-1]
            results.add(block.where, f"swift block ({name})", "FAIL", detail, seconds)
        else:
            results.add(block.where, f"swift block builds ({name})", "ok", "", seconds)
    if "Compiling plugin" in log:
        results.add("client package", "a client by path compiles no plugin", "FAIL",
                    "; ".join(l for l in log.split("\n") if "Compiling plugin" in l), None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", default=str(ROOT.parent / "shared"))
    parser.add_argument("--posekit", default=str(ROOT / ".build" / "release" / "posekit"))
    parser.add_argument("--jobs", type=int, default=max(2, (os.cpu_count() or 2)))
    parser.add_argument("--only", help="check only the blocks whose place (doc:line) or text contains this")
    parser.add_argument("--no-swift", action="store_true", help="skip building the swift blocks")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    args = parser.parse_args()
    shared = Path(args.shared).resolve()
    posekit = Path(args.posekit).resolve()
    if not os.access(posekit, os.X_OK):
        sys.exit(f"docs-check: {posekit} is missing; run make build")
    docs = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    blocks = [b for doc in docs for b in blocks_of(doc)]
    if args.only:
        blocks = [b for b in blocks if args.only in b.where or args.only in b.text]
    (ROOT / ".cache").mkdir(exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="docs-check.", dir=ROOT / ".cache"))
    posekit_dir = base / "bin"
    posekit_dir.mkdir()
    os.symlink(posekit, posekit_dir / "posekit")
    results = Results()
    started = time.monotonic()
    try:
        print(f"docs-check: fixtures in {base}", flush=True)
        make_fixtures(base / "template", shared, posekit)
        flags, python_cache = cpu_flags(), {}
        shell = [b for b in blocks if b.language in ("sh", "bash")]
        swift = [b for b in blocks if b.language == "swift"]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs + (0 if args.no_swift else 1)) as pool:
            futures = []
            if swift and not args.no_swift:
                futures.append(pool.submit(check_swift, swift, base, results, shared))
            for index, block in enumerate(shell):
                work = make_scratch(base, base / "template", shared, posekit, index)
                futures.append(pool.submit(run_block, block, work, posekit_dir, flags, python_cache, results))
            for future in futures:
                future.result()
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    rows = results.rows
    counts = {s: sum(1 for r in rows if r[2] == s) for s in ("ok", "FAIL", "SKIP")}
    print(f"\ndocs-check: {counts['ok']} ran as pasted, {counts['FAIL']} failed, {counts['SKIP']} skipped "
          f"({len(blocks)} blocks, {time.monotonic() - started:.0f} s)")
    for row in rows:
        if row[2] == "SKIP":
            print(f"  skipped {row[0]}: {row[3]}")
    failed = [r for r in rows if r[2] == "FAIL"]
    for row in failed:
        print(f"  FAILED {row[0]}: {row[1].split(chr(10))[0]}\n      {row[3]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
