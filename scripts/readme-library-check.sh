#!/usr/bin/env bash
# The README's "Use as a library" code, as a user would take it: its first `swift` block becomes
# main.swift and its second Package.swift of a fresh client package beside this checkout
# (`../posekit`, a path dependency), built with no PoseKit environment variables and run on a
# shared image. Its first pose's nose must lie within 2 px of `posekit pose`'s.
# Sources/PoseNet/PoseNet.docc/GettingStarted.md must show the same Package.swift and main.swift (its first two `swift`
# blocks); its video example (third block) is built beside them and run on 3 frames.
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
mkdir -p "$work/PoseDemo/Sources/PoseDemo"
swift_block "$root/README.md" "## Use as a library" 1 > "$work/PoseDemo/Sources/PoseDemo/main.swift"
swift_block "$root/README.md" "## Use as a library" 2 > "$work/PoseDemo/Package.swift"
if ! diff -u "$work/PoseDemo/Package.swift" <(swift_block "$root/Sources/PoseNet/PoseNet.docc/GettingStarted.md" "" 1) \
   || ! diff -u "$work/PoseDemo/Sources/PoseDemo/main.swift" <(swift_block "$root/Sources/PoseNet/PoseNet.docc/GettingStarted.md" "" 2); then
  echo "readme-library-check: Sources/PoseNet/PoseNet.docc/GettingStarted.md's manifest or image example differs from the README's" >&2; exit 1
fi

# The article's video example becomes a second executable of the same package.
mkdir -p "$work/PoseDemo/Sources/PoseVideo"
swift_block "$root/Sources/PoseNet/PoseNet.docc/GettingStarted.md" "" 3 > "$work/PoseDemo/Sources/PoseVideo/main.swift"
python3 - "$work/PoseDemo/Package.swift" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
marker = "    targets: ["
assert marker in text, "the README manifest has no targets list"
video = ('\n        .executableTarget(name: "PoseVideo", dependencies: ['
         '.product(name: "PoseNet", package: "posekit"), .product(name: "FrameIO", package: "posekit"), '
         '.product(name: "ActionNet", package: "posekit")]),')
open(path, "w").write(text.replace(marker, marker + video, 1))
PY

echo "readme-library-check: building the README's library example against $(basename "$root") by path"
env -u POSEKIT_TARGET_CPU -u POSEKIT_GEMM swift build -c release --package-path "$work/PoseDemo" 2>&1 | tail -n 3
# As a user runs it: from the client's own directory.
(cd "$work/PoseDemo" && .build/release/PoseDemo "$image") > "$work/library.txt"
"$posekit" pose "$image" > "$work/cli.jsonl"
# The video example on 3 frames of the image.
ffmpeg -nostdin -loglevel error -loop 1 -i "$image" -frames:v 3 -r 30 -pix_fmt yuv420p -f yuv4mpegpipe "$work/clip.y4m"
(cd "$work/PoseDemo" && .build/release/PoseVideo "$work/clip.y4m") > "$work/video.txt"
grep -q '^frame 2: person [0-9]*: nose at' "$work/video.txt" && grep -q '"type": "summary", "frames": 3' "$work/video.txt" || {
  echo "readme-library-check: the article's video example printed:" >&2; cat "$work/video.txt" >&2; exit 1; }
echo "readme-library-check: the article's video example ran: $(wc -l < "$work/video.txt") lines"

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
