#!/usr/bin/env python3
"""Fails when the optimizer left SIMD memory access or generic SIMD code as calls in the release binary.

Usage: scripts/check-codegen.py [.build/release/posekit]

Why: the kernels rely on Swift inlining the standard library's SIMD loads and stores
(`loadUnaligned`, `storeBytes`) and specializing the SIMD operations. Whether it does depends on
the whole module, so an unrelated change once left `loadUnaligned`/`storeBytes` as out-of-line
calls in the first convolution layer, which then ran three times slower while every test still
passed. This check disassembles the binary (`objdump -d`) and fails when any function that is
called from somewhere calls:
  - a `loadUnaligned` or `storeBytes` specialization, or
  - a `SIMDStorage` protocol witness (unspecialized generic SIMD code).
Generic entry points that nothing calls (public generic helpers such as `Activation.apply`)
contain such calls by nature and are not reported.
It also checks that each instruction set's copy of the packed GEMM microkernel (CKernels, chosen at
run time) holds that instruction set's fused multiply-adds: zmm for AVX-512, ymm for AVX2 (a lost
`target` attribute would leave a copy running at baseline speed on every CPU).
Run on `make build`'s binary (built with -enable-testing, which keeps unspecialized generic copies: uncalled, not reported).
"""
import re
import subprocess
import sys

binary = sys.argv[1] if len(sys.argv) > 1 else ".build/release/posekit"
try:
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], check=True,
                             capture_output=True, text=True).stdout
except FileNotFoundError:
    sys.exit("check-codegen: objdump not found (install binutils)")
except subprocess.CalledProcessError as error:
    sys.exit(f"check-codegen: objdump failed on {binary}: {error.stderr.strip()}")

SLOW = re.compile(r"loadUnaligned|storeBytes|\$ss11SIMDStorageP")
function_start = re.compile(r"^[0-9a-f]+ <(.+)>:$")
call = re.compile(r"\bcall\s+[0-9a-f]+ <([^>]+)>")

calls = {}       # caller -> list of callees
current = None
for line in listing.splitlines():
    m = function_start.match(line)
    if m:
        current = m.group(1)
        calls.setdefault(current, [])
        continue
    m = call.search(line)
    if m and current:
        calls[current].append(m.group(1).split("@")[0].split("+")[0])

called = {callee for callees in calls.values() for callee in callees}
# Readers of model files (FlatBuffers) load their scalars through generic code across modules; they
# run once per import, not per frame, so only the kernels' modules are held to inlined SIMD. The
# standard library's own generic bodies (`$ss...`, e.g. `SIMDStorage.scalarCount`'s default) call
# its witnesses by nature: they are reached only from unspecialized generic entry points (the
# -enable-testing build `make build` now makes keeps those), and a kernel calling one of them is
# itself reported, since the callee's name is `$ss11SIMDStorageP...`.
NOT_KERNELS = re.compile(r"11FlatBuffers|^\$ss")
offenders = sorted({(caller, callee) for caller, callees in calls.items() if caller in called
                    and not NOT_KERNELS.search(caller)
                    for callee in callees if SLOW.search(callee)})
if not calls:
    sys.exit(f"check-codegen: no functions found in {binary}")
if offenders:
    print(f"check-codegen: {len(offenders)} call(s) to out-of-line SIMD code in {binary}:")
    for caller, callee in offenders:
        print(f"  {caller}\n    calls {callee}")
    print("The kernels expect these inlined and specialized (see the docstring of scripts/check-codegen.py);"
          " split the function that lost them with @inline(never) boundaries, as packedConvolutionRow does.")
    sys.exit(1)
# The per-instruction-set copies of the packed GEMM: the wide tile is inlined into row_tile.
copies = {"posekit_avx512_row_tile": "zmm", "posekit_avx2_row_tile": "ymm"}
body = {name: [] for name in copies}
current = None
for line in listing.splitlines():
    m = function_start.match(line)
    if m:
        current = m.group(1) if m.group(1) in body else None
        continue
    if current:
        body[current].append(line)
for name, register in copies.items():
    if not body[name]:
        sys.exit(f"check-codegen: {name} not found in {binary} (CKernels' x86-64 copies are missing)")
    fmas = sum(1 for line in body[name] if "vfmadd" in line and f"%{register}" in line)
    if fmas < 12:
        sys.exit(f"check-codegen: {name} has {fmas} {register} fused multiply-adds; its target attribute was lost")

print(f"check-codegen: {binary}: no out-of-line SIMD loads, stores or generic SIMD calls "
      f"in {sum(1 for c in calls if c in called)} called functions")
