# PoseKit build entry points. `make demo` and `make test` are the README's two commands.
SHELL := /bin/bash
SHARED ?= $(abspath ../shared)
POSEKIT_WEIGHTS_SRC ?= $(SHARED)/weights
SWIFT ?= swift
RELEASE := $(SWIFT) build -c release
POSEKIT := .build/release/posekit
# Tests run optimised: the kernels, network and parity checks are far too slow unoptimised.
TEST_FLAGS := -c release -Xswiftc -enable-testing

WEIGHTS := Weights/mobilenet075.pkw Weights/mobilenet050.pkw

.PHONY: setup build weights test bench demo fuzz fuzz-smoke train-actions clean

# Installs the system packages PoseKit needs, only when missing (idempotent).
setup:
	@missing=""; for p in libopenblas-dev pkg-config ffmpeg; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make setup: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	else echo "make setup: libopenblas-dev, pkg-config and ffmpeg are installed"; fi

build: setup
	$(RELEASE)

# Imports the published PoseNet weights from ../shared into our bundle format (never committed).
weights: build $(WEIGHTS)

Weights/mobilenet075.pkw: $(POSEKIT_WEIGHTS_SRC)/posenet-mobilenet075-s16-coreml/PoseNetMobileNet075S16FP16.mlmodel | build
	$(POSEKIT) import $< -o $@

Weights/mobilenet050.pkw: $(POSEKIT_WEIGHTS_SRC)/posenet-mobilenet050-tf/model-mobilenet_v1_050.pb | build
	$(POSEKIT) import $< -o $@

test: setup weights
	$(SWIFT) test $(TEST_FLAGS)

bench: weights
	$(POSEKIT) bench kernels

demo: weights
	@echo "demo: not wired yet"

# Trains the action classifier (deterministic: seed 1) into the committed Weights/actionnet.pkw.
# Real clips are $(ACTION_POSES)/<clip>.jsonl (`posekit pose` output for ../shared/media/videos); absent ones are skipped.
ACTION_POSES ?= .cache/poses
train-actions: build
	$(POSEKIT) train-actions --labels $(SHARED)/media/videos/labels.json --poses-dir $(ACTION_POSES) --seed 1 -o Weights/actionnet.pkw

clean:
	rm -rf .build demo
