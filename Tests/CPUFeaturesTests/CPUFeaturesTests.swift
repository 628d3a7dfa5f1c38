import CPUFeatures
import Foundation
import Testing

@Suite struct CPUFeaturesTests {
    /// CPUID + XCR0 against the kernel's own view: /proc/cpuinfo lists a vector extension only
    /// when the CPU has it and the kernel saves its registers.
    @Test func detectionAgreesWithProcCPUInfo() throws {
        #if arch(x86_64) && os(Linux)
        let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = try #require(info.split(separator: "\n").first { $0.hasPrefix("flags") })
        let flags = Set(line.split(separator: " ").map(String.init))
        let detected = HostCPU.detectedFeatures()
        for feature in CPUFeature.allCases where feature != .neon {
            #expect(detected.contains(feature) == flags.contains(feature.rawValue), "\(feature)")
        }
        #elseif arch(arm64)
        #expect(HostCPU.detectedFeatures() == [.neon])
        #endif
    }

    @Test func levelsAreNamedByTheirHighestExtension() {
        #expect(HostCPU.level(of: [.sse2]) == "SSE2")
        #expect(HostCPU.level(of: [.sse2, .avx, .avx2, .fma, .f16c]) == "AVX2")
        let avx2: Set<CPUFeature> = [.sse2, .avx, .avx2, .fma]
        #expect(HostCPU.level(of: avx2.union(BuildTarget.avx512Features)) == "AVX-512")
        #expect(HostCPU.level(of: [.sse2, .avx, .avx2, .fma, .avx512f]) == "AVX2")  // F alone is not enough
        #expect(HostCPU.level(of: [.neon]) == "NEON")
    }

    /// The guard refuses exactly the CPUs that lack something the build was compiled for.
    @Test func guardMatchesTheBuildsRequirements() throws {
        let avx2 = BuildTarget.haswellFeatures.union([.sse2])
        #expect(CPUGuard.problem(host: BuildTarget.requiredFeatures.union([.sse2])) == nil)
        if BuildTarget.isTuned {
            let message = try #require(CPUGuard.problem(host: [.sse2]))
            #expect(message.hasPrefix("this build needs \(BuildTarget.requirementName); this CPU has SSE2"))
            #expect(message.contains("Rebuild with make build"))
            if BuildTarget.requiredFeatures.contains(.avx512f) {
                #expect(CPUGuard.problem(host: avx2)?.hasPrefix("this build needs AVX-512 (F, BW, DQ, VL); this CPU has AVX2") == true)
            } else {
                #expect(CPUGuard.problem(host: avx2) == nil)
                // AVX2 without the scalar extensions -target-cpu haswell may also emit.
                #expect(CPUGuard.problem(host: avx2.subtracting([.bmi2]))?.contains("missing bmi2") == true)
            }
        } else {
            #expect(BuildTarget.requiredFeatures.isEmpty)
            #expect(CPUGuard.problem(host: []) == nil)
        }
    }
}
