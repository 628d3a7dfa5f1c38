import CPUFeatures
import Foundation
import Tensor

/// What every benchmark prints first: which OpenBLAS kernels are active (`OPENBLAS_CORETYPE` in
/// the environment forces a set that may be weaker than the one OpenBLAS picks for the CPU) and
/// how busy the machine is (other work skews timings, 2-thread figures most).
public enum BenchEnvironment {
    /// Logs the build, CPU, GEMM kernel, OpenBLAS core and load, and returns them for a JSON report.
    public static func report(log: (String) -> Void) -> [String: Any] {
        let core = BLASThreads.coreName
        let forced = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        var report: [String: Any] = [
            "openblas_core": core, "openblas_coretype_env": forced ?? NSNull(), "build": BuildTarget.description,
            "cpu": HostCPU.summary, "gemm_kernel": GEMMKernel.preferred.description,
        ]
        log("build: \(BuildTarget.description); CPU: \(HostCPU.summary)")
        log("GEMM kernel: \(GEMMKernel.preferred.description)")
        log("OpenBLAS core: \(core)" + (forced == nil ? " (auto-detected)" : " (forced by OPENBLAS_CORETYPE)"))
        if let forced {
            log("warning: OPENBLAS_CORETYPE=\(forced) forces OpenBLAS's \(forced) kernels, which may be weaker than the ones "
                + "it picks for this CPU; compare with `env -u OPENBLAS_CORETYPE`.")
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
}
