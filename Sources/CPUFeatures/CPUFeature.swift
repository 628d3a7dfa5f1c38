import CCPUID
import Foundation

/// An instruction-set extension a tuned build or a run-time kernel may use, named as in
/// /proc/cpuinfo (`abm` is LZCNT). The dot-product and matrix extensions (VNNI, BF16, AMX) are only
/// ever used by kernels chosen at run time (`Precision`), never by a tuned build.
public enum CPUFeature: String, CaseIterable, Comparable, Sendable {
    case sse2, avx, fma, f16c, avx2, bmi1, bmi2, abm, movbe, avx512f, avx512dq, avx512cd, avx512bw, avx512vl
    /// `vpdpbusd` on 512-bit vectors (AVX512-VNNI) and on 256-bit ones with a VEX encoding (AVX-VNNI).
    case avx512vnni = "avx512_vnni", avxvnni = "avx_vnni"
    /// `vdpbf16ps` and the bf16 conversions (AVX512-BF16).
    case avx512bf16 = "avx512_bf16"
    /// Intel AMX: the tile registers, and their bf16 and int8 multiplies.
    case amxtile = "amx_tile", amxbf16 = "amx_bf16", amxint8 = "amx_int8"
    case neon
    /// aarch64's dot-product extension (ARMv8.2+ `sdot`/`udot`; "asimddp" in /proc/cpuinfo), from the
    /// hardware capabilities the kernel reports (`AT_HWCAP`), or `hw.optional.arm.FEAT_DotProd` on macOS.
    case asimddp

    /// The features that exist on aarch64 only (the others are x86-64's).
    public static let aarch64Features: Set<CPUFeature> = [.neon, .asimddp]

    public static func < (a: CPUFeature, b: CPUFeature) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The vector features of the CPU this process runs on.
public enum HostCPU {
    /// The environment variable that narrows the detected features, for testing the CPU guard
    /// on a machine that has them: a comma-separated list such as `sse2,avx,avx2,fma`. Features
    /// the CPU lacks are ignored, so it can only take features away (never cause SIGILL).
    public static let forcedFeaturesVariable = "POSEKIT_FORCE_CPU_FEATURES"

    /// The detected features, narrowed by ``forcedFeaturesVariable`` when it is set.
    public static let features: Set<CPUFeature> = {
        let detected = detectedFeatures()
        guard let forced = ProcessInfo.processInfo.environment[forcedFeaturesVariable] else { return detected }
        let names = forced.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return detected.intersection(names.compactMap(CPUFeature.init(rawValue:)))
    }()

    /// Whether ``features`` was narrowed by ``forcedFeaturesVariable``.
    public static var isForced: Bool { ProcessInfo.processInfo.environment[forcedFeaturesVariable] != nil }

    /// What the CPU and operating system support, from CPUID and XCR0 on x86-64 (a feature
    /// counts only when the OS also saves its registers), NEON (part of the baseline) and the dot
    /// product on aarch64.
    public static func detectedFeatures() -> Set<CPUFeature> {
        #if arch(x86_64)
        var r1: [UInt32] = [0, 0, 0, 0], r7: [UInt32] = [0, 0, 0, 0], rx: [UInt32] = [0, 0, 0, 0]
        var r71: [UInt32] = [0, 0, 0, 0]
        guard posekit_cpuid(1, 0, &r1) != 0 else { return [.sse2] }
        _ = posekit_cpuid(7, 0, &r7)
        if r7[0] >= 1 { _ = posekit_cpuid(7, 1, &r71) }  // EAX of leaf 7.0: the highest subleaf
        _ = posekit_cpuid(0x8000_0001, 0, &rx)
        let xcr0 = posekit_xcr0()
        let osSavesYMM = xcr0 & 0x6 == 0x6          // SSE + AVX state
        let osSavesZMM = xcr0 & 0xE6 == 0xE6        // plus opmask and both ZMM halves
        let osSavesTiles = xcr0 & 0x60000 == 0x60000  // XTILECFG and XTILEDATA (AMX)
        func bit(_ register: UInt32, _ n: UInt32) -> Bool { register & (1 << n) != 0 }
        var found: Set<CPUFeature> = [.sse2]        // part of x86-64 itself
        // Scalar extensions `-target-cpu haswell` also lets the compiler use.
        if bit(r7[1], 3) { found.insert(.bmi1) }
        if bit(r7[1], 8) { found.insert(.bmi2) }
        if bit(rx[2], 5) { found.insert(.abm) }
        if bit(r1[2], 22) { found.insert(.movbe) }
        if osSavesYMM {
            if bit(r1[2], 28) { found.insert(.avx) }
            if bit(r1[2], 12) { found.insert(.fma) }
            if bit(r1[2], 29) { found.insert(.f16c) }
            if bit(r7[1], 5) { found.insert(.avx2) }
            if bit(r71[0], 4) { found.insert(.avxvnni) }
        }
        if osSavesZMM {
            if bit(r7[1], 16) { found.insert(.avx512f) }
            if bit(r7[1], 17) { found.insert(.avx512dq) }
            if bit(r7[1], 28) { found.insert(.avx512cd) }
            if bit(r7[1], 30) { found.insert(.avx512bw) }
            if bit(r7[1], 31) { found.insert(.avx512vl) }
            if bit(r7[2], 11) { found.insert(.avx512vnni) }
            if bit(r71[0], 5) { found.insert(.avx512bf16) }
        }
        if osSavesTiles {
            if bit(r7[3], 24) { found.insert(.amxtile) }
            if bit(r7[3], 22) { found.insert(.amxbf16) }
            if bit(r7[3], 25) { found.insert(.amxint8) }
        }
        return found
        #elseif arch(arm64)
        var found: Set<CPUFeature> = [.neon]
        if posekit_arm_has_dotprod() != 0 { found.insert(.asimddp) }
        return found
        #else
        return []
        #endif
    }

    /// The highest vector level in `features`, as people name it: "AVX-512", "AVX2", "AVX",
    /// "SSE2", "NEON" or "none".
    public static func level(of features: Set<CPUFeature>) -> String {
        if features.isSuperset(of: BuildTarget.avx512Features) { return "AVX-512" }
        if features.isSuperset(of: [.avx2, .fma]) { return "AVX2" }
        if features.contains(.avx) { return "AVX" }
        if features.contains(.sse2) { return "SSE2" }
        if features.contains(.neon) { return "NEON" }
        return "none"
    }

    /// One line for reports, e.g. `AVX2 (sse2 avx fma f16c avx2)`.
    public static var summary: String {
        let list = features.sorted().map(\.rawValue).joined(separator: " ")
        return "\(level(of: features)) (\(list))" + (isForced ? ", narrowed by \(forcedFeaturesVariable)" : "")
    }
}
