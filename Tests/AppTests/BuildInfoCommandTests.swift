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
        #expect(result.lines.count == 7)
        #expect(result.stdoutText.contains("build         \(BuildTarget.description)"))
        #expect(result.stdoutText.contains("CPU class     \(CPUClass.host.summary)"))
        #expect(result.stdoutText.contains("reduced       "))
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
    /// The x86-64 baseline: only the portable build runs there (a tuned one stops at the CPU guard).
    static let baselineOnly = ["POSEKIT_FORCE_CPU_FEATURES": "sse2"]

    @Test func explicitReducedPrecisionWithoutTheInstructionsIsOneLine() throws {
        let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        // int8 needs only AVX2 (vpmaddwd without VNNI): refused on the baseline, which only the portable build runs.
        var refusals = [("bf16", "AVX512-BF16", Self.withoutDotProducts)]
        if !BuildTarget.isTuned { refusals.append(("int8", "AVX2 (x86-64) or NEON (aarch64)", Self.baselineOnly)) }
        for (precision, needs, environment) in refusals {
            let result = try CLI.run(["pose", "--precision", precision, "--input-size", "257", image], environment: environment)
            #expect(result.status == 1, "\(precision): \(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: --precision \(precision): \(precision) precision needs \(needs)"),
                    "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        // `run` too, on an imported graph, before anything is written.
        let model = CLI.shared.appendingPathComponent("weights/mediapipe-0.10.14/hand_landmark_lite.tflite").path
        let input = CLI.shared.appendingPathComponent("reference/mediapipe/models/hand_landmark_lite/mpii_004645041_input_1.npy").path
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        let run = try CLI.run(["run", model, "--input", input, "--output", out.path, "--precision", "bf16"], environment: Self.withoutDotProducts)
        #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1
                && run.stderr.hasPrefix("posekit: error: --precision bf16: bf16 precision needs AVX512-BF16"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// int8 without VNNI: an AVX2 CPU (VNNI hidden) runs it with `vpmaddwd`, and the poses are the
    /// VNNI copy's (the same quantization, exact integer sums).
    @Test func int8RunsOnAVX2WithoutVNNI() throws {
        let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        let arguments = ["pose", "--precision", "int8", "--input-size", "257", "--threads", "1", image]
        let avx2 = try CLI.run(arguments, environment: Self.withoutDotProducts.merging(["POSEKIT_KERNEL_ISA": "avx2"]) { $1 })
        #expect(avx2.status == 0, "\(avx2.stderr)")
        let best = try CLI.run(arguments, environment: ["POSEKIT_KERNEL_ISA": "avx2"])
        #expect(best.status == 0 && best.stdout == avx2.stdout, "int8's poses depend on the int8 copy")
    }

    /// The layer-study variable: a word that names no layer is one line (it is read only when a
    /// reduced precision is asked); naming only the heads runs them reduced and nothing else, so the
    /// poses differ from fp32's and from the default int8 layers'.
    @Test func reducedLayersVariableNarrowsTheLayers() throws {
        let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        let arguments = ["pose", "--input-size", "257", "--threads", "1", image]
        let bad = try CLI.run(arguments + ["--precision", "int8"], environment: ["POSEKIT_POSENET_REDUCED_LAYERS": "7,14"])
        // A CPU without VNNI refuses int8 first (explicitReducedPrecisionWithoutTheInstructionsIsOneLine).
        guard !bad.stderr.contains("int8 precision needs") else { return }
        #expect(bad.status == 1 && bad.stderr.split(separator: "\n").count == 1
                && bad.stderr.hasSuffix("mobilenet075.pkw: POSEKIT_POSENET_REDUCED_LAYERS=7,14: '14' is not a block 1-13, heads or none\n"),
                "\(bad.stderr)")
        let fp32 = try CLI.run(arguments, environment: ["POSEKIT_POSENET_REDUCED_LAYERS": "7,14"])
        #expect(fp32.status == 0, "fp32 ignores the variable: \(fp32.stderr)")
        let none = try CLI.run(arguments + ["--precision", "int8"], environment: ["POSEKIT_POSENET_REDUCED_LAYERS": "none"])
        let heads = try CLI.run(arguments + ["--precision", "int8"], environment: ["POSEKIT_POSENET_REDUCED_LAYERS": "heads"])
        let widest = try CLI.run(arguments + ["--precision", "int8"])
        #expect(none.status == 0 && heads.status == 0 && widest.status == 0)
        #expect(none.stdout == fp32.stdout, "no layer reduced gives fp32's poses")
        #expect(heads.stdout != fp32.stdout && heads.stdout != widest.stdout)
    }

    @Test func unknownReducedKernelIsOneErrorLine() throws {
        let result = try CLI.run(["info", "--build"], environment: ["POSEKIT_REDUCED_KERNEL": "int4"])
        #expect(result.status == 1)
        #expect(result.stderr == "posekit: error: POSEKIT_REDUCED_KERNEL=int4 is not a reduced-precision kernel; use int8-avx512vnni, int8-avxvnni, int8-avx2, int8-neon-dot, int8-neon, bf16-avx512\n")
    }
}
