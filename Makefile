# PoseKit build entry points. `make demo` and `make test` are the README's two commands.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
SHARED ?= $(abspath ../shared)
POSEKIT_WEIGHTS_SRC ?= $(SHARED)/weights
SWIFT ?= swift
# `make build`/`demo`/`test` compile the kernels for this machine (Package.swift: POSEKIT_TARGET_CPU;
# `make build TARGET_CPU=haswell` for AVX2, `TARGET_CPU=portable` for the default any-CPU build).
# The portable build (what `swift build` and package clients get) lives in its own scratch path.
TARGET_CPU ?= native
TUNED := env POSEKIT_TARGET_CPU=$(TARGET_CPU)
PORTABLE := env -u POSEKIT_TARGET_CPU
PORTABLE_SCRATCH := --scratch-path .build-portable
PORTABLE_TEST_SCRATCH := --scratch-path .build-portable-test
# One release tree, .build, for the command and the tests: tests run optimized (the kernels,
# network and parity checks are far too slow unoptimized) and need -enable-testing, so the
# command is built with it too, and `make test` after `make demo` compiles only the test
# targets instead of a second tree from scratch. The compiler's arguments must agree exactly (any
# difference rebuilds every module): `swift test` would add its own -enable-testing at another
# place in them, so it is told not to (--disable-testable-imports) and gets the same -Xswiftc
# -enable-testing as `swift build`.
TEST_FLAGS := -c release -Xswiftc -enable-testing
RELEASE := $(TUNED) $(SWIFT) build $(TEST_FLAGS)
SWIFT_TEST := $(SWIFT) test $(TEST_FLAGS) --disable-testable-imports
POSEKIT := .build/release/posekit
# What the portable build must pass as well: every kernel (each instruction set's packed GEMM the
# host runs, chosen at run time as in every build), network parity, decoding, the CPU guard.
PORTABLE_SUITES := TensorTests|CPUFeaturesTests|NetworkParityTests|ReducedPrecisionParityTests|SharedWeightsTests|RepeatedBandTests|Decoding|BuildInfoCommandTests|ModelGraphTests

WEIGHTS := Weights/mobilenet075.pkw Weights/mobilenet050.pkw
# MediaPipe's six TFLite models, imported as graph bundles (`make graphs`; git-ignored like the PoseNet ones).
MEDIAPIPE_SRC ?= $(POSEKIT_WEIGHTS_SRC)/mediapipe-0.10.14
MEDIAPIPE_MODELS := pose_detection pose_landmark_full palm_detection_full palm_detection_lite hand_landmark_full hand_landmark_lite
GRAPHS := $(MEDIAPIPE_MODELS:%=Weights/%.pkw)

# Where `make install` (and `make demo`) puts `posekit`: /usr/local when it may write there, else ~/.local.
PREFIX ?= $(shell [ -w /usr/local/bin ] && echo /usr/local || echo $(HOME)/.local)

.PHONY: docs docs-check install peers setup build test-ckernels test-arm64 bench-ckernels build-portable weights graphs test test-ray test-view-browser view-screenshot test-portable check-codegen package-check bench demo fuzz fuzz-smoke train-actions rep-protocol clean

# Installs the system packages PoseKit needs, only when missing (idempotent).
setup:
	@missing=""; for p in libopenblas-dev pkg-config ffmpeg parallel binutils libjpeg-dev gcc-aarch64-linux-gnu qemu-user chromium chromium-driver; do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make setup: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	else echo "make setup: libopenblas-dev, pkg-config, ffmpeg, parallel, binutils, libjpeg-dev, gcc-aarch64-linux-gnu, qemu-user, chromium and chromium-driver are installed"; fi

build: setup
	$(RELEASE)

build-portable: setup
	$(PORTABLE) $(SWIFT) build -c release $(PORTABLE_SCRATCH)

# Imports the published PoseNet weights and MediaPipe's graphs from ../shared into our bundle format (never committed).
weights: build $(WEIGHTS) $(GRAPHS)

graphs: build $(GRAPHS)

Weights/%.pkw: $(MEDIAPIPE_SRC)/%.tflite | build
	$(POSEKIT) import $< -o $@

Weights/mobilenet075.pkw: $(POSEKIT_WEIGHTS_SRC)/posenet-mobilenet075-s16-coreml/PoseNetMobileNet075S16FP16.mlmodel | build
	$(POSEKIT) import $< -o $@

Weights/mobilenet050.pkw: $(POSEKIT_WEIGHTS_SRC)/posenet-mobilenet050-tf/model-mobilenet_v1_050.pb | build
	$(POSEKIT) import $< -o $@

test: setup weights
	$(TUNED) $(SWIFT_TEST)

# deploy/ray/posekit_ray.py on a real local Ray cluster (Ray installed into .cache/ray-venv): shards,
# a killed posekit retried, bad input; about 3 minutes. `deploy/ray/test_ray_batch.sh --throughput` also measures.
test-ray: weights
	SHARED=$(SHARED) POSEKIT=$(abspath $(POSEKIT)) deploy/ray/test_ray_batch.sh

# `posekit view` in headless Chromium (chromium-driver): frames advance, the wireframe is where the JSON puts
# it, the action and Summary are `posekit actions`' on the same clip, SIGINT; then a clip played live with two
# tabs and a reload (scripts/view-browser-test.py; about 2 minutes).
test-view-browser: weights
	scripts/view-browser-test.py --posekit $(POSEKIT) --shared $(SHARED)

# docs/view.png: the page on a clip whose licence allows it (docs/view.md says which and why).
view-screenshot: weights
	scripts/view-screenshot.sh $(POSEKIT)

# The kernel, parity and decoding suites on the portable build (CKernels' packed GEMMs chosen at run
# time, baseline Swift codegen).
test-portable: setup weights
	$(PORTABLE) $(SWIFT_TEST) $(PORTABLE_TEST_SCRATCH) --filter '$(PORTABLE_SUITES)'

# CKernels' own C tests (Tests/CKernelsArm/kernel_tests.c: every packed GEMM, depthwise and int8 copy against
# naive loops). `test-ckernels` runs them natively with the Swift toolchain's clang (x86-64: the baseline, AVX2
# and AVX-512 copies and the int8 copies this CPU runs; the others are listed as skipped). `test-arm64`
# cross-compiles them for aarch64, with gcc (Debian's gcc-aarch64-linux-gnu) and with clang, and runs them
# under qemu-aarch64 as an ARMv8.0 core without the dot product (cortex-a53), an ARMv8.2 one with it
# (neoverse-n1) and QEMU's `max`: the NEON copies are checked here, never run natively (docs/dispatch.md).
CLANG ?= clang
ARM64_CC ?= aarch64-linux-gnu-gcc
QEMU_AARCH64 ?= qemu-aarch64
ARM64_CPUS := cortex-a53 neoverse-n1 max
CKERNELS_TEST_SOURCES := $(wildcard Sources/CKernels/*.c) Tests/CKernelsArm/kernel_tests.c
CKERNELS_TEST_FLAGS := -O2 -std=gnu11 -Wall -Werror -I Sources/CKernels/include
test-ckernels:
	@mkdir -p .build-ckernels
	$(CLANG) $(CKERNELS_TEST_FLAGS) $(CKERNELS_TEST_SOURCES) -o .build-ckernels/kernel_tests -lm
	.build-ckernels/kernel_tests

# The GEMM copies (fp32 of each instruction set, each int8 copy) timed on PoseNet's layer shapes, one core,
# thread CPU time (docs/speed.md's per-CPU-class kernel tables), then the int8 study (x86: instruction
# throughputs and the 7-bit vpmaddubsw variant): `make bench-ckernels [BENCH_RUNS=20]`.
BENCH_RUNS ?= 20
bench-ckernels:
	@mkdir -p .build-ckernels
	$(CLANG) -O2 -std=gnu11 -Wall -Werror -I Sources/CKernels/include $(wildcard Sources/CKernels/*.c) Tests/CKernelsArm/kernel_bench.c -o .build-ckernels/kernel_bench -lm
	.build-ckernels/kernel_bench $(BENCH_RUNS)
	$(CLANG) -O2 -std=gnu11 -Wall -Werror Tests/CKernelsArm/int8_zen_study.c -o .build-ckernels/int8_zen_study
	.build-ckernels/int8_zen_study

test-arm64: setup
	@mkdir -p .build-ckernels
	$(ARM64_CC) $(CKERNELS_TEST_FLAGS) -static $(CKERNELS_TEST_SOURCES) -o .build-ckernels/kernel_tests-aarch64-gcc -lm
	$(CLANG) --target=aarch64-linux-gnu $(CKERNELS_TEST_FLAGS) -static $(CKERNELS_TEST_SOURCES) -o .build-ckernels/kernel_tests-aarch64-clang -lm
	@for compiler in gcc clang; do for cpu in $(ARM64_CPUS); do \
	  echo "test-arm64: $$compiler build, qemu-aarch64 -cpu $$cpu"; \
	  $(QEMU_AARCH64) -cpu $$cpu .build-ckernels/kernel_tests-aarch64-$$compiler || exit 1; done; done

# The release binary keeps its SIMD loads, stores and operations inlined (an unrelated change once
# made the first layer 3x slower without failing a test): scripts/check-codegen.py.
check-codegen: build
	scripts/check-codegen.py $(POSEKIT)

# PoseKit as a versioned dependency: the default manifest has no unsafe flags, and a client package
# that depends on this checkout by git URL and version builds and runs a forward pass. Then the
# README's "Use as a library" code, built against this checkout by path, finds posekit's nose.
package-check: weights
	scripts/client-package-check.sh $(SHARED)
	scripts/readme-library-check.sh $(SHARED)

# DocC documentation of every library product's module in one archive whose pages link to each
# other (swift-docc-plugin's combined documentation: a link into another module is ``/Module/Symbol``),
# with each module's landing page (Sources/*/*.docc) and PoseKit's getting-started article:
# .build-docs/plugins/Swift-DocC/outputs/PoseKit.doccarchive. Any warning (a broken symbol link, an
# undocumented parameter) fails it. CPUFeatures and Protobuf are internal targets, not products.
DOC_TARGETS := Tensor PoseCore FrameIO Streaming PoseNet ActionNet Detectors PoseKit
docs:
	$(PORTABLE) $(SWIFT) package --scratch-path .build-docs generate-documentation \
	  --enable-experimental-combined-documentation $(addprefix --target ,$(DOC_TARGETS)) --warnings-as-errors

# `posekit` on PATH: $(PREFIX)/bin/posekit, a link to this checkout's release build (which finds
# this checkout's Weights/), so every later `make build` is what runs. Says where, and what to add
# to PATH when that directory is not on it.
install: build
	@mkdir -p "$(PREFIX)/bin"
	@ln -sfn "$(abspath $(POSEKIT))" "$(PREFIX)/bin/posekit"
	@echo "install: $(PREFIX)/bin/posekit -> $(abspath $(POSEKIT))"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; *) echo "install: $(PREFIX)/bin is not on your PATH; add it: export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac

# The Python peers of the comparisons (--compare-tflite, --compare-ort, --compare-mediapipe) in a venv;
# `. .cache/peers-venv/bin/activate` puts its python3 first on PATH, where posekit looks for it.
PEERS_VENV := .cache/peers-venv
peers:
	@[ -x $(PEERS_VENV)/bin/python ] || python3 -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install -q -r scripts/peers-requirements.txt
	@echo "peers: installed in $(PEERS_VENV); run . $(PEERS_VENV)/bin/activate before the --compare-* benchmarks"

# Every shell recipe of README.md and docs/*.md run as pasted against short cuts of ../shared media
# in a scratch folder, and every swift block built in a client package by path (scripts/docs-check.py;
# recipes that need a camera, Ray, a network or instructions this CPU lacks are marked and skipped).
docs-check: weights
	scripts/cli-reference.py --check --posekit $(POSEKIT)
	scripts/docs-check.py --shared $(SHARED) --posekit $(POSEKIT)

bench: weights
	$(POSEKIT) bench kernels

# The main job on a real clip: ffmpeg decodes, posekit finds the poses and draws them, ffmpeg encodes.
DEMO_CLIP ?= $(SHARED)/media/videos/409416541_Independent-Study__Jumping_Jacks.mp4
demo: weights
	@mkdir -p demo
	@echo "demo: posekit pose on $(notdir $(DEMO_CLIP)) (10 s)"
	ffmpeg -nostdin -loglevel error -ss 2 -t 10 -i "$(DEMO_CLIP)" -an -vf "scale='min(640,iw)':-2" -f yuv4mpegpipe - \
	  | $(POSEKIT) pose --progress --overlay - --json demo/poses.jsonl - \
	  | ffmpeg -nostdin -loglevel error -y -f yuv4mpegpipe -i - -pix_fmt yuv420p demo/overlay.mp4
	ffmpeg -nostdin -loglevel error -ss 2 -t 10 -i "$(DEMO_CLIP)" -an -vf "scale='min(640,iw)':-2" -f yuv4mpegpipe - \
	  | $(POSEKIT) actions - > demo/actions.jsonl
	@echo "demo: wrote $(abspath demo/poses.jsonl) ($$(wc -l < demo/poses.jsonl) frames), $(abspath demo/overlay.mp4)"
	@echo "demo: and $(abspath demo/actions.jsonl), whose summary is: $$(tail -n 1 demo/actions.jsonl)"
	@$(MAKE) --no-print-directory install

# libFuzzer runs of the parsers of untrusted files: PNM, Y4M, Core ML models, window files, pose JSON Lines,
# .npy (separate package in Fuzz/, seeds generated from ../shared and Fuzz/make_seeds.py).
fuzz:
	POSEKIT_SHARED=$(SHARED) Fuzz/run.sh 600

fuzz-smoke:
	POSEKIT_SHARED=$(SHARED) Fuzz/run.sh 20

# Trains the action classifier (deterministic: seed 1) into the committed Weights/actionnet.pkw.
# Real clips are $(ACTION_POSES)/<clip>.jsonl (`posekit pose` output for ../shared/media/videos); absent ones are skipped.
ACTION_POSES ?= .cache/poses
# Real-clip poses from our own PoseNet (git-ignored: derived from ../shared media), at the settings the
# committed weights were trained on (353, raw; retraining on the one default is not done yet).
$(ACTION_POSES)/.done: $(SHARED)/media/videos/labels.json | weights
	POSEKIT=$(POSEKIT) scripts/action-poses.sh $(SHARED) $(ACTION_POSES) --input-size 353 --no-smooth
	touch $@

train-actions: build $(ACTION_POSES)/.done
	$(POSEKIT) train-actions --labels $(SHARED)/media/videos/labels.json --poses-dir $(ACTION_POSES) --seed 1 -o Weights/actionnet.pkw

# The repetition counters' thresholds chosen leave-one-clip-out, and on all clips, on poses with the one
# default `pose` and `actions` share (docs/actions.md "How the thresholds are chosen").
rep-protocol: build
	POSEKIT=$(POSEKIT) scripts/rep-protocol.sh $(SHARED)

clean:
	rm -rf .build .build-test .build-portable .build-portable-test .build-ckernels demo .cache/docs-check.*
