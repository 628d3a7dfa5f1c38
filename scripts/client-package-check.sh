#!/usr/bin/env bash
# Builds and runs a throwaway package that depends on this checkout the way a user's package
# depends on PoseKit: by git URL and version (`.package(url: ..., from: "1.0.0")`). SwiftPM
# refuses versioned dependencies whose targets use unsafe flags, so this fails if the default
# manifest ever uses them again. The client runs one forward pass and checks the heatmap against
# a reference case from ../shared.
#   scripts/client-package-check.sh [SHARED_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=$(cd "${1:-$root/../shared}" && pwd)
weights=$root/Weights/mobilenet075.pkw
case_dir=$shared/reference/mobilenet075__coco_000000000785__257_os16
[ -f "$weights" ] || { echo "client-package-check: $weights is missing; run make weights" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/posekit-client.XXXXXX")
trap 'rm -rf "$work"' EXIT

# A release-like repository of the working tree's tracked files (uncommitted edits included).
mkdir "$work/posekit"
(cd "$root" && git ls-files -z | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -C "$work/posekit" -xf -
git -C "$work/posekit" init -q
git -C "$work/posekit" add -A
git -C "$work/posekit" -c user.name=PoseKit -c user.email=dev@posekit.invalid commit -q -m "client check"
git -C "$work/posekit" tag 1.0.0

# The manifest itself: no unsafe flags by default, a clear error for an unknown tuned CPU.
manifest=$(cd "$work/posekit" && env -u POSEKIT_TARGET_CPU swift package dump-package)
if grep -q unsafeFlags <<<"$manifest"; then
  echo "client-package-check: the default manifest declares unsafeFlags" >&2; exit 1
fi
if ! (cd "$work/posekit" && POSEKIT_TARGET_CPU=pentium4 swift package dump-package 2>&1 || true) \
     | grep -q "POSEKIT_TARGET_CPU=pentium4 is not a CPU PoseKit knows"; then
  echo "client-package-check: an unknown POSEKIT_TARGET_CPU does not give the manifest error" >&2; exit 1
fi
echo "client-package-check: default manifest has no unsafeFlags; unknown POSEKIT_TARGET_CPU is refused"

mkdir "$work/client"
cp -R "$root/Tests/Fixtures/ClientPackage/Sources" "$work/client/"
sed "s|@POSEKIT_URL@|file://$work/posekit|" "$root/Tests/Fixtures/ClientPackage/Package.swift.in" > "$work/client/Package.swift"

# The client must build exactly as a user's would: no PoseKit environment variables.
echo "client-package-check: building a package that depends on PoseKit 1.0.0 by git URL"
env -u POSEKIT_TARGET_CPU -u POSEKIT_GEMM swift build -c release --package-path "$work/client" > "$work/client-build.log" 2>&1 \
  || { tail -n 20 "$work/client-build.log" >&2; exit 1; }
tail -n 3 "$work/client-build.log"
# A client uses the library products only: PoseKit's manifest, evaluated as a dependency (not the root
# package), leaves out the command, the tools and every package dependency (swift-argument-parser, whose
# plugins SwiftPM would otherwise compile for every client; the docs plugin; the view's server).
if grep -q "Compiling plugin" "$work/client-build.log"; then
  echo "client-package-check: the client's build compiled a plugin:" >&2
  grep "Compiling plugin" "$work/client-build.log" >&2; exit 1
fi
echo "client-package-check: the client's build compiled no plugin"
"$work/client/.build/release/PoseKitClient" "$weights" "$case_dir"
