#include "posekit_cpuid.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <string.h>

int posekit_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t registers[4]) {
    unsigned int a = 0, b = 0, c = 0, d = 0;
    int ok = __get_cpuid_count(leaf, subleaf, &a, &b, &c, &d);
    registers[0] = a; registers[1] = b; registers[2] = c; registers[3] = d;
    return ok;
}

int posekit_hypervisor_signature(char signature[13]) {
    unsigned int a, b, c, d;
    memset(signature, 0, 13);
    // CPUID.1:ECX bit 31: running under a hypervisor, whose leaves start at 0x40000000 (outside the
    // ranges __get_cpuid_count checks, so queried directly).
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31))) return 0;
    __cpuid(0x40000000, a, b, c, d);
    memcpy(signature, &b, 4); memcpy(signature + 4, &c, 4); memcpy(signature + 8, &d, 4);
    return 1;
}

uint64_t posekit_xcr0(void) {
    unsigned int a, b, c, d;
    // XGETBV faults unless the OS has set CR4.OSXSAVE, which CPUID.1:ECX bit 27 reports.
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0;
    uint32_t low, high;
    __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
    return ((uint64_t)high << 32) | low;
}
#else
int posekit_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t registers[4]) {
    (void)leaf; (void)subleaf;
    registers[0] = registers[1] = registers[2] = registers[3] = 0;
    return 0;
}

uint64_t posekit_xcr0(void) { return 0; }

int posekit_hypervisor_signature(char signature[13]) {
    for (int i = 0; i < 13; i++) signature[i] = 0;
    return 0;
}
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ASIMDDP
#define HWCAP_ASIMDDP (1 << 20)
#endif
int posekit_arm_has_dotprod(void) { return (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) != 0; }
#elif defined(__aarch64__) && defined(__APPLE__)
#include <sys/sysctl.h>
int posekit_arm_has_dotprod(void) {
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname("hw.optional.arm.FEAT_DotProd", &value, &size, NULL, 0) == 0 && value != 0;
}
#else
int posekit_arm_has_dotprod(void) { return 0; }
#endif
