@testable import CPUFeatures
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
        for feature in CPUFeature.allCases where !CPUFeature.aarch64Features.contains(feature) {
            #expect(detected.contains(feature) == flags.contains(feature.rawValue), "\(feature)")
        }
        #expect(detected.isDisjoint(with: CPUFeature.aarch64Features))
        #elseif arch(arm64) && os(Linux)
        let info = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = try #require(info.split(separator: "\n").first { $0.hasPrefix("Features") })
        let flags = Set(line.split(separator: " ").map(String.init))
        #expect(HostCPU.detectedFeatures() == (flags.contains("asimddp") ? [.neon, .asimddp] : [.neon]))
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

/// The CPU class `bench` prints: identity against /proc/cpuinfo (the kernel's own CPUID reading),
/// caches against the kernel's cache report, and the parsing of sysfs' formats.
@Suite struct CPUClassTests {
    @Test func identityAgreesWithProcCPUInfo() throws {
        #if arch(x86_64) && os(Linux)
        let host = CPUClass.host
        #expect(host.modelName == CPUClass.procCPUInfo("model name"))
        #expect(String(host.family) == CPUClass.procCPUInfo("cpu family"))
        #expect(String(host.model) == CPUClass.procCPUInfo("model"))
        #expect(String(host.stepping) == CPUClass.procCPUInfo("stepping"))
        #expect(host.vendor == CPUClass.procCPUInfo("vendor_id"))
        let flags = try #require(CPUClass.procCPUInfo("flags")).split(separator: " ")
        #expect((host.hypervisor != nil) == flags.contains("hypervisor"))
        #endif
        #expect(CPUClass.host.logicalCores == ProcessInfo.processInfo.activeProcessorCount)
        #expect(CPUClass.host.summary.contains("\(CPUClass.host.logicalCores) logical cores"))
    }

    /// /proc/cpuinfo's `cache size` is the L2 per core on AMD and the last level on Intel.
    @Test func cachesAgreeWithProcCPUInfo() throws {
        #if os(Linux)
        let caches = CPUClass.host.caches
        #expect(!caches.isEmpty && caches.map(\.level) == caches.map(\.level).sorted())
        guard let text = CPUClass.procCPUInfo("cache size"), let kib = Int(text.split(separator: " ")[0]) else { return }
        #expect(caches.contains { $0.bytes == kib * 1024 }, "\(caches) against cache size \(text)")
        #endif
    }

    @Test func sysfsFormatsParse() {
        #expect(CPUClass.parseSize("32K") == 32 * 1024)
        #expect(CPUClass.parseSize("8192K") == 8 << 20)
        #expect(CPUClass.parseSize("1M") == 1 << 20)
        #expect(CPUClass.parseSize("lots") == nil)
        #expect(CPUClass.countCPUs("0") == 1)
        #expect(CPUClass.countCPUs("0-1") == 2)
        #expect(CPUClass.countCPUs("0-3,8,10-11") == 7)
        #expect(CPUClass.size(8 << 20) == "8 MiB" && CPUClass.size(512 * 1024) == "512 KiB")
    }

    @Test func microarchitecturesOfTheHostsMeasured() {
        #expect(CPUClass.microarchitecture(vendor: "AuthenticAMD", family: 23, model: 1) == "Zen 1")
        #expect(CPUClass.microarchitecture(vendor: "AuthenticAMD", family: 25, model: 1) == "Zen 3")
        #expect(CPUClass.microarchitecture(vendor: "GenuineIntel", family: 6, model: 207) == "Emerald Rapids")
        #expect(CPUClass.microarchitecture(vendor: "GenuineIntel", family: 6, model: 1) == nil)
    }
}
