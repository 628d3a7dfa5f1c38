// The x86 CPUID and XGETBV instructions for CPUFeatures (Swift has no inline assembly).
// On other architectures both report nothing.
#ifndef POSEKIT_CPUID_H
#define POSEKIT_CPUID_H

#include <stdint.h>

/// Runs CPUID for `leaf`/`subleaf` into registers[0..3] = EAX, EBX, ECX, EDX.
/// Returns 0 (and zeros) when the leaf is beyond the CPU's highest leaf or this is not x86-64.
int posekit_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t registers[4]);

/// XCR0, the register states the operating system saves (bit 1 SSE, 2 AVX, 5-7 AVX-512);
/// 0 when the OS does not enable XGETBV (CPUID.1:ECX.OSXSAVE clear) or this is not x86-64.
uint64_t posekit_xcr0(void);

/// 1 when the OS runs under a hypervisor (CPUID.1:ECX bit 31), with its vendor signature (e.g.
/// `KVMKVMKVM`, NUL-terminated, possibly empty) in `signature`; 0 otherwise and off x86-64.
int posekit_hypervisor_signature(char signature[13]);

/// 1 when this is an aarch64 CPU with the dot-product extension (ARMv8.2+ `sdot`), from `AT_HWCAP`
/// on Linux or `hw.optional.arm.FEAT_DotProd` on macOS; 0 otherwise (and on other architectures).
int posekit_arm_has_dotprod(void);

#endif
