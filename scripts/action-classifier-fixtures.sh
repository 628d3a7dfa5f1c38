#!/usr/bin/env bash
# Records what a `posekit` binary says about the shared action-classifier inputs, as the fixtures
# the tests compare the current build against (Tests/Fixtures/ActionClassifiers/):
#   createml-windows.jsonl        every window of ../shared/reference/createml through
#                                 `actions --classifier MODEL --window W` (one prediction line each);
#   <Model>/<clip>.jsonl          `actions --classifier MODEL --poses CLIP` on the shared poses;
#   ActionNet/<clip>.jsonl        `actions --poses CLIP` (ActionNet, Weights/actionnet.pkw).
# Made once with the binary built at abae2c7, whose Create ML classifiers ran on their own layer
# executor (CoreMLGraph) and ActionNet on TemporalConvNet's buffers, before both became graphs:
#   scripts/action-classifier-fixtures.sh OLD_POSEKIT [../shared]
# Never edited by hand; CreateMLExecutorFixtureTests and ActionNetGraphTests read them.
set -euo pipefail
posekit=${1:?usage: $0 POSEKIT [SHARED]}
shared=${2:-../shared}
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Tests/Fixtures/ActionClassifiers"
mkdir -p "$out/ActionNet"
models=(ExerciseClassifier:createml-exercise-classifier PlayerActionClassifier:createml-player-action-classifier)
: > "$out/createml-windows.jsonl"
for entry in "${models[@]}"; do
  name=${entry%%:*} folder=${entry#*:}
  model="$shared/weights/$folder/$name.mlmodel"
  mkdir -p "$out/$name"
  for window in "$shared/reference/createml/$name"/*.npy; do
    line=$("$posekit" actions --classifier "$model" --window "$window")
    printf '{"model": "%s", "window": "%s", "prediction": %s}\n' "$name" "$(basename "$window")" "$line" >> "$out/createml-windows.jsonl"
  done
  for poses in "$shared/reference/createml/poses"/*.jsonl; do
    "$posekit" actions --classifier "$model" --poses "$poses" > "$out/$name/$(basename "$poses")"
  done
done
for poses in "$shared/reference/createml/poses"/*.jsonl; do
  "$posekit" actions --poses "$poses" > "$out/ActionNet/$(basename "$poses")"
done
echo "wrote $(find "$out" -type f | wc -l) files to $out"
