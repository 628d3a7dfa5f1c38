#!/usr/bin/env bash
# The repetition counters' thresholds, chosen by the protocol of docs/actions.md ("How the thresholds
# are chosen"), end to end and reproducibly (no random choice anywhere; classifiers trained with seed 1):
#   scripts/rep-protocol.sh [SHARED]          (SHARED: ../shared by default; `make rep-protocol` runs it)
# 1. the poses of every labels.json clip, and of the two segments of scripts/unseen-segments.json, with the
#    one default (`posekit pose`: 513, smoothed) into $POSES and $UNSEEN (skipped when their stamps are there);
# 2. the classifier of each fold: by default the committed Weights/actionnet.pkw in every fold (the protocol
#    holds out the thresholds; the classifier saw every clip); with RETRAIN=1, one trained without each clip
#    (seed 1; kept in .cache/loo-one-default and reused);
# 3. `posekit train-actions --choose-thresholds`: each clip counted with the thresholds chosen on the other
#    clips, then the thresholds chosen on all clips with $WEIGHTS, counted on the unseen segments too.
#    Markdown tables on stdout.
set -euo pipefail
shared=${1:-../shared}
posekit=${POSEKIT:-.build/release/posekit}
poses=${POSES:-.cache/poses-one-default}
unseen=${UNSEEN:-.cache/poses-unseen}
weights=${WEIGHTS:-Weights/actionnet.pkw}
if [ ! -f "$poses/.one-default" ]; then
  POSEKIT=$posekit scripts/action-poses.sh "$shared" "$poses"
  touch "$poses/.one-default"
fi
if [ ! -f "$unseen/.one-default" ]; then
  LABELS=scripts/unseen-segments.json POSEKIT=$posekit scripts/action-poses.sh "$shared" "$unseen"
  touch "$unseen/.one-default"
fi
if [ "${RETRAIN:-0}" = 1 ]; then
  models=.cache/loo-one-default
else
  models=.cache/loo-committed
  mkdir -p "$models"
  echo "(fold classifiers: $weights in every fold, which saw every clip; RETRAIN=1 trains one without each clip)"
  python3 - "$shared/media/videos/labels.json" "$weights" "$models" <<'PY'
import json, shutil, sys
for clip in json.load(open(sys.argv[1])):
    shutil.copyfile(sys.argv[2], f"{sys.argv[3]}/without-{clip['file'].rsplit('.', 1)[0]}.pkw")
PY
fi
"$posekit" train-actions --choose-thresholds --labels "$shared/media/videos/labels.json" --poses-dir "$poses" \
  --models-dir "$models" --seed 1 --weights "$weights" --check-labels scripts/unseen-segments.json --check-poses-dir "$unseen"
