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

/// `--precision` as a user meets it: an explicit reduced precision on a CPU without its
/// instructions (hidden with POSEKIT_FORCE_CPU_FEATURES) is one line and status 1; `auto` falls
/// back to fp32 there and says so in `eval --json`.
@Suite struct PrecisionCommandTests {
    /// Everything a tuned build may need, without VNNI and BF16.
    static let withoutDotProducts = ["POSEKIT_FORCE_CPU_FEATURES": "sse2,avx,avx2,fma,f16c,bmi1,bmi2,abm,movbe,avx512f,avx512dq,avx512cd,avx512bw,avx512vl"]

    @Test func explicitReducedPrecisionWithoutTheInstructionsIsOneLine() throws {
        let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        for (precision, needs) in [("int8", "AVX512-VNNI or AVX-VNNI"), ("bf16", "AVX512-BF16")] {
            let result = try CLI.run(["pose", "--precision", precision, "--input-size", "257", image], environment: Self.withoutDotProducts)
            #expect(result.status == 1, "\(precision): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: --precision \(precision): \(precision) precision needs \(needs)"),
                    "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func unknownReducedKernelIsOneErrorLine() throws {
        let result = try CLI.run(["info", "--build"], environment: ["POSEKIT_REDUCED_KERNEL": "int4"])
        #expect(result.status == 1)
        #expect(result.stderr == "posekit: error: POSEKIT_REDUCED_KERNEL=int4 is not a reduced-precision kernel; use int8-avx512vnni, int8-avxvnni, bf16-avx512\n")
    }
}
