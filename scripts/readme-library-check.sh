#!/usr/bin/env bash
# The library guide's code (docs/library.md "Use as a library"; the README's one example is its first
# block), as a user would take it: its first `swift` block becomes
# Sources/PoseDemo/main.swift, its second Package.swift and its third Sources/PoseVideo/main.swift
# of a fresh client package beside this checkout (`../posekit`, a path dependency), built with no
# PoseKit environment variables. PoseDemo runs on a shared image: its first pose's nose must lie
# within 2 px of `posekit pose`'s. PoseVideo runs on a short MP4: its ids and noses must be
# `posekit pose`'s. Both examples' error lines are posekit's for a missing file, a corrupt JPEG and no
# ffmpeg on PATH. Sources/PoseKit/PoseKit.docc/GettingStarted.md must show the same manifest,
# image and video code (its first three `swift` blocks); its exercises example (fourth block) is
# built beside them and run on the same video.
#   scripts/readme-library-check.sh [SHARED_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "${1:-$root/../shared}" && pwd)
image=$shared/media/images/coco_000000000785.ppm
posekit=$root/.build/release/posekit
[ -x "$posekit" ] || { echo "readme-library-check: $posekit is missing; run make build" >&2; exit 1; }

# The n-th (1-based) ```swift block after a heading line (or anywhere when the heading is empty).
swift_block() {  # FILE HEADING N
  python3 - "$1" "$2" "$3" <<'PY'
import sys
path, heading, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lines = open(path, encoding="utf-8").read().split("\n")
start = lines.index(heading) + 1 if heading else 0
blocks, current = [], None
for line in lines[start:]:
    if current is None:
        if line.startswith("## ") and heading and blocks: break
        if line.strip() == "```swift": current = []
    elif line.strip() == "```":
        blocks.append("\n".join(current) + "\n"); current = None
    else:
        current.append(line)
if len(blocks) < n: sys.exit(f"{path}: no swift block {n} after {heading!r}")
sys.stdout.write(blocks[n - 1])
PY
}

work=$(mktemp -d "${TMPDIR:-/tmp}/posekit-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT
ln -s "$root" "$work/posekit"
mkdir -p "$work/PoseDemo/Sources/PoseDemo" "$work/PoseDemo/Sources/PoseVideo" "$work/PoseDemo/Sources/PoseActions"
readme=$root/README.md
guide=$root/docs/library.md
article=$root/Sources/PoseKit/PoseKit.docc/GettingStarted.md
swift_block "$guide" "## Use as a library" 1 > "$work/PoseDemo/Sources/PoseDemo/main.swift"
swift_block "$guide" "## Use as a library" 2 > "$work/PoseDemo/Package.swift"
swift_block "$guide" "## Use as a library" 3 > "$work/PoseDemo/Sources/PoseVideo/main.swift"
# The README's one example is the guide's first, word for word.
diff -u "$work/PoseDemo/Sources/PoseDemo/main.swift" <(swift_block "$readme" "## Use as a library" 1) || {
  echo "readme-library-check: the README's library example differs from $guide's first block" >&2; exit 1; }
for pair in "Package.swift 1" "Sources/PoseDemo/main.swift 2" "Sources/PoseVideo/main.swift 3"; do
  set -- $pair
  diff -u "$work/PoseDemo/$1" <(swift_block "$article" "" "$2") || {
    echo "readme-library-check: $article's block $2 differs from the README's $1" >&2; exit 1; }
done

# The article's exercises example becomes a third executable of the same package.
swift_block "$article" "" 4 > "$work/PoseDemo/Sources/PoseActions/main.swift"
python3 - "$work/PoseDemo/Package.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
marker = "    targets: ["
assert marker in text, "the README manifest has no targets list"
actions = '\n        .executableTarget(name: "PoseActions", dependencies: [.product(name: "PoseKit", package: "posekit")]),'
open(path, "w").write(text.replace(marker, marker + actions, 1))
PY

echo "readme-library-check: building the README's library example against $(basename "$root") by path"
env -u POSEKIT_TARGET_CPU -u POSEKIT_GEMM swift build -c release --package-path "$work/PoseDemo" 2>&1 | tail -n 3
# As a user runs it: from the client's own directory.
(cd "$work/PoseDemo" && .build/release/PoseDemo "$image") > "$work/library.txt"
"$posekit" pose "$image" > "$work/cli.jsonl"

# Bad input through the library: the example's `error: ...` line is posekit's `posekit: error: ...`
# for a missing file, a corrupt JPEG and (PATH without ffmpeg) a JPEG that needs ffmpeg.
mkdir "$work/no-ffmpeg"
printf '\xff\xd8\xff\xe0 not really a JPEG' > "$work/broken.jpg"
jpeg=$shared/media/images/coco_000000000785.jpg
for case in "missing:$work/missing.jpg:$PATH" "corrupt:$work/broken.jpg:$PATH" "no ffmpeg:$jpeg:$work/no-ffmpeg"; do
  IFS=: read -r what input search <<<"$case"
  command=$(PATH=$search "$posekit" pose "$input" 2>&1 >/dev/null) || true
  for example in PoseDemo PoseVideo; do
    library=$(cd "$work/PoseDemo" && PATH=$search .build/release/$example "$input" 2>&1) && status=0 || status=$?
    if [ "$status" != 1 ] || [ "posekit: $library" != "$command" ]; then
      echo "readme-library-check: $what: $example printed '$library' (exit $status), posekit '$command'" >&2; exit 1
    fi
  done
  echo "readme-library-check: $what: the library's error is posekit's: $library"
done

# The video example on a short MP4: the same frames, ids and noses (to the pixel) as `posekit pose`.
ffmpeg -nostdin -loglevel error -i "$shared/media/videos/yuyoujiang_test_video__squat.mp4" -t 1 -vf scale=320:-2 -c:v libx264 "$work/clip.mp4"
(cd "$work/PoseDemo" && .build/release/PoseVideo "$work/clip.mp4") > "$work/video.txt"
"$posekit" pose "$work/clip.mp4" > "$work/video.jsonl"
python3 - "$work/video.txt" "$work/video.jsonl" <<'PY'
import json, sys
printed = [line.rstrip("\n") for line in open(sys.argv[1])]
expected = []
for line in open(sys.argv[2]):
    record = json.loads(line)
    people = []
    for pose in record["poses"]:
        nose = next(k for k in pose["keypoints"] if k["part"] == "nose")
        people.append((pose["id"], int(nose["x"]), int(nose["y"])))
    expected.append((record["frame"], people))
if len(printed) != len(expected) or len(printed) < 25:
    sys.exit(f"readme-library-check: the video example printed {len(printed)} lines, posekit pose {len(expected)} frames")
for text, (frame, people) in zip(printed, expected):
    want = [f"person {i}: nose at ({x}, {y})" for i, x, y in people]
    got = text.split(": ", 1)[1].split("; ") if text.split(": ", 1)[1] else []
    ok = text.startswith(f"frame {frame}: ") and len(got) == len(want) and all(
        g.split(":")[0] == w.split(":")[0] and all(abs(int(a) - int(b)) <= 1 for a, b in zip(
            g.split("(")[1].rstrip(")").split(", "), w.split("(")[1].rstrip(")").split(", "))) for g, w in zip(got, want))
    if not ok: sys.exit(f"readme-library-check: video line {text!r}, posekit pose gives {want}")
print(f"readme-library-check: the README's video example printed posekit pose's {len(printed)} frames of ids")
PY
(cd "$work/PoseDemo" && .build/release/PoseActions "$work/clip.mp4") > "$work/actions.txt"
grep -q '"type": "summary", "frames": 30' "$work/actions.txt" || {
  echo "readme-library-check: the article's exercises example printed:" >&2; cat "$work/actions.txt" >&2; exit 1; }
echo "readme-library-check: the article's exercises example ran: $(wc -l < "$work/actions.txt") lines"

python3 - "$work/library.txt" "$work/cli.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1]).read().split("\n")
nose = None
for line in text:
    words = line.split()
    if words[:1] == ["nose"]:
        nose = (float(words[2]), float(words[4])); break
if nose is None: sys.exit("readme-library-check: the example printed no nose:\n" + "\n".join(text[:5]))
poses = json.loads(open(sys.argv[2]).readline())["poses"]
cli = next((k["x"], k["y"]) for k in poses[0]["keypoints"] if k["part"] == "nose")
distance = ((nose[0] - cli[0]) ** 2 + (nose[1] - cli[1]) ** 2) ** 0.5
print(f"readme-library-check: nose ({nose[0]:.2f}, {nose[1]:.2f}) vs posekit pose ({cli[0]:.2f}, {cli[1]:.2f}): {distance:.3f} px")
if distance > 2: sys.exit("readme-library-check: more than 2 px apart")
PY
