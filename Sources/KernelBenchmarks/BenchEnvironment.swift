import CPUFeatures
import Foundation
import Tensor

/// What every benchmark prints first: the class of CPU it runs on (``CPUClass``: ratios from
/// different classes are never to be mixed), which OpenBLAS kernels are active
/// (`OPENBLAS_CORETYPE` in the environment forces a set that may be weaker than the one OpenBLAS
/// picks for the CPU) and how busy the machine is (other work skews timings, 2-thread figures most).
public enum BenchEnvironment {
    /// Logs the build, CPU, GEMM kernel, OpenBLAS core and load, and returns them for a JSON report.
    public static func report(log: (String) -> Void) -> [String: Any] {
        let core = BLASThreads.coreName
        let forced = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        var report: [String: Any] = [
            "openblas_core": core, "openblas_coretype_env": forced ?? NSNull(), "build": BuildTarget.description,
            "cpu": HostCPU.summary, "gemm_kernel": GEMMKernel.preferred.description,
        ]
        report["kernel_isa"] = KernelISA.preferred.rawValue
        report["depthwise_kernel"] = Convolution.depthwiseKernelFamily
        report["cpu_class"] = CPUClass.host.json
        let int8 = ReducedPrecisionKernel.preferred(for: .int8)
        report["int8_kernel"] = int8?.family ?? NSNull()
        log("CPU class: \(CPUClass.host.summary)")
        log("build: \(BuildTarget.description); CPU: \(HostCPU.summary)")
        log("GEMM kernel: \(GEMMKernel.preferred.description)")
        log("depthwise kernel: \(Convolution.depthwiseKernelFamily); int8 kernel: \(int8?.family ?? "none on this CPU")")
        log("OpenBLAS core: \(core)" + (forced == nil ? " (auto-detected)" : " (forced by OPENBLAS_CORETYPE)"))
        if let fallback = openBLASFallback(core: core) {
            report["openblas_fallback"] = fallback
            log("warning: " + fallback)
        }
        if let loadavg = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
           let oneMinute = loadavg.split(separator: " ").first.flatMap({ Double($0) }) {
            report["load_average_1min"] = oneMinute
            if oneMinute > 1 {
                log(String(format: "note: 1-minute load average is %.1f on %d cores; other processes skew these timings",
                           oneMinute, Parallelism.defaultThreads))
            }
        }
        return report
    }

    /// OpenBLAS's generic SSE-era kernel sets: what it runs on a CPU missing from its table (Prescott),
    /// or what `OPENBLAS_CORETYPE` may force.
    static let sseOnlyOpenBLASCores: Set<String> = ["prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai",
                                                    "coppermine", "northwood", "banias", "opteron", "barcelona", "bobcat"]

    /// A sentence when OpenBLAS runs SSE-only kernels on a CPU with AVX2 or AVX-512 (a fallback),
    /// saying what of PoseKit still relies on it; nil otherwise.
    static func openBLASFallback(core: String, host: Set<CPUFeature> = HostCPU.features) -> String? {
        guard sseOnlyOpenBLASCores.contains(core.lowercased()), host.isSuperset(of: [.avx2, .fma]) else { return nil }
        let forced = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        let why = forced.map { "OPENBLAS_CORETYPE=\($0) forces them" } ?? "OpenBLAS does not know this CPU"
        let reliance = GEMMKernel.preferred == .blas
            ? "PoseKit's GEMMs use OpenBLAS (POSEKIT_GEMM=blas) and run at SSE speed"
            : "PoseKit's kernels do not use it (only training and `bench kernels`' sgemm reference do)"
        return "OpenBLAS runs its SSE-only \(core) kernels on this \(HostCPU.level(of: host)) CPU (\(why)); \(reliance)"
    }
}
