/// The instruction set this build's Tensor kernels were compiled for (Package.swift's
/// POSEKIT_TARGET_CPU), known here through compilation conditions only: this target itself is
/// always compiled for the baseline, so it can run on any CPU and refuse the wrong one.
public enum BuildTarget {
    /// The AVX-512 subsets that make a CPU "AVX-512" here (what the 16-lane kernels need).
    public static let avx512Features: Set<CPUFeature> = [.avx512f, .avx512bw, .avx512dq, .avx512vl]
    /// Everything `-target-cpu haswell` (x86-64-v3) lets the compiler emit beyond x86-64.
    public static let haswellFeatures: Set<CPUFeature> = [.avx, .avx2, .fma, .f16c, .bmi1, .bmi2, .abm, .movbe]

    /// Whether the kernels were compiled for one CPU family (`POSEKIT_TARGET_CPU` set) rather
    /// than the portable baseline.
    public static var isTuned: Bool {
        #if POSEKIT_BUILD_TUNED
        return true
        #else
        return false
        #endif
    }

    /// The features the compiled code may use beyond the architecture's baseline.
    public static var requiredFeatures: Set<CPUFeature> {
        #if POSEKIT_BUILD_AVX512
        return haswellFeatures.union(avx512Features).union([.avx512cd])  // -target-cpu skylake-avx512
        #elseif POSEKIT_BUILD_AVX2
        return haswellFeatures
        #else
        return []
        #endif
    }

    /// How the requirement is named in messages: "AVX-512 (F, BW, DQ, VL)", "AVX2 and FMA".
    public static var requirementName: String {
        #if POSEKIT_BUILD_AVX512
        return "AVX-512 (F, BW, DQ, VL)"
        #elseif POSEKIT_BUILD_AVX2
        return "AVX2 and FMA"
        #else
        return "nothing beyond the baseline"
        #endif
    }

    /// One line for `posekit info`, e.g. `tuned for AVX2 and FMA (POSEKIT_TARGET_CPU)`.
    public static var description: String {
        #if arch(x86_64)
        let baseline = "x86-64 baseline (SSE2)"
        #elseif arch(arm64)
        let baseline = "aarch64 baseline (NEON)"
        #else
        let baseline = "baseline"
        #endif
        return isTuned ? "tuned for \(requirementName) (POSEKIT_TARGET_CPU)" : "portable: \(baseline), kernels chosen at run time"
    }
}

/// The check `posekit` runs before anything compiled for the build's target: a tuned binary on
/// a CPU without its instructions would otherwise die of SIGILL somewhere in the first layer.
public enum CPUGuard {
    /// Nil when `host` has everything the build needs, else the sentence to print, e.g.
    /// `this build needs AVX-512 (F, BW, DQ, VL); this CPU has AVX2. Rebuild with make build`.
    public static func problem(host: Set<CPUFeature> = HostCPU.features) -> String? {
        let missing = BuildTarget.requiredFeatures.subtracting(host)
        guard !missing.isEmpty else { return nil }
        return "this build needs \(BuildTarget.requirementName); this CPU has \(HostCPU.level(of: host))"
            + " (missing \(missing.sorted().map(\.rawValue).joined(separator: ", "))). Rebuild with make build"
            + " on this machine, or build without POSEKIT_TARGET_CPU for a portable binary"
    }
}
