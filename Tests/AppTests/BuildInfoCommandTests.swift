import CPUFeatures
import Foundation
import Testing

/// The CPU guard and `posekit info --build`, run as a user would.
@Suite struct BuildInfoCommandTests {
    /// A tuned binary on a CPU without its instructions: one error line and status 1, before any
    /// tuned code runs (POSEKIT_FORCE_CPU_FEATURES hides features this CPU has). The portable
    /// binary runs anywhere.
    @Test func guardRefusesACPUWithoutTheBuildsInstructions() throws {
        let result = try CLI.run(["info", "--build"], environment: ["POSEKIT_FORCE_CPU_FEATURES": "sse2"])
        if BuildTarget.isTuned {
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1)
            #expect(lines.first?.hasPrefix("posekit: error: this build needs \(BuildTarget.requirementName); this CPU has SSE2") == true,
                    "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        } else {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText.contains("this CPU      SSE2 (sse2), narrowed by POSEKIT_FORCE_CPU_FEATURES"))
        }
    }

    @Test func infoNamesTheBuildTheCPUAndTheKernel() throws {
        let result = try CLI.run(["info", "--build"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 5)
        #expect(result.stdoutText.contains("build         \(BuildTarget.description)"))
        #expect(result.stdoutText.contains("this CPU      \(HostCPU.level(of: HostCPU.detectedFeatures()))"))
        let blas = try CLI.run(["info", "--build"], environment: ["POSEKIT_GEMM": "blas"])
        #expect(blas.stdoutText.contains("GEMM kernel   OpenBLAS sgemm"))
        let packed = try CLI.run(["info", "--build"], environment: ["POSEKIT_GEMM": "packed"])
        #expect(packed.stdoutText.contains("GEMM kernel   PoseKit packed GEMM"))
    }

    /// POSEKIT_KERNEL_ISA narrows the packed GEMM's instruction set; one the CPU lacks (as
    /// narrowed by POSEKIT_FORCE_CPU_FEATURES) is one warning line and the run goes on with the
    /// best the CPU has (0.10 said "using SSE2" and exited 1); a name that is no instruction set
    /// is one error line, exit 1.
    @Test func kernelISAFollowsTheCPUAndTheEnvironment() throws {
        let baseline = try CLI.run(["info", "--build"], environment: ["POSEKIT_KERNEL_ISA": "baseline"])
        #expect(baseline.status == 0)
        #expect(baseline.stdoutText.contains("GEMM kernel   PoseKit packed GEMM, 6x8 tile, 4-lane vectors"))
        let sse = try CLI.run(["info", "--build"], environment: ["POSEKIT_FORCE_CPU_FEATURES": "sse2", "POSEKIT_KERNEL_ISA": "avx2"])
        if BuildTarget.isTuned {
            // A tuned build's CPU guard refuses an SSE2-only CPU before any kernel is chosen.
            #expect(sse.status == 1)
            #expect(sse.stderr.hasPrefix("posekit: error: this build needs \(BuildTarget.requirementName)"), "\(sse.stderr)")
        } else {
            #expect(sse.status == 0, "\(sse.stderr)")
            #expect(sse.stderr == "posekit: warning: POSEKIT_KERNEL_ISA=avx2: this CPU lacks AVX2+FMA; using SSE2\n")
            #expect(sse.stdoutText.contains("GEMM kernel   PoseKit packed GEMM, 6x8 tile, 4-lane vectors"), "\(sse.stdoutText)")
        }
        let unknown = try CLI.run(["info", "--build"], environment: ["POSEKIT_KERNEL_ISA": "sse9"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "posekit: error: POSEKIT_KERNEL_ISA=sse9 is not an instruction set; use baseline, avx2, avx512\n")
    }

    @Test func unknownGEMMKernelIsOneErrorLine() throws {
        let result = try CLI.run(["info", "--build"], environment: ["POSEKIT_GEMM": "fast"])
        #expect(result.status == 1)
        #expect(result.stderr == "posekit: error: POSEKIT_GEMM=fast is not a GEMM kernel; use packed or blas\n")
    }
}
