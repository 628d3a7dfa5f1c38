import CCPUID
import Foundation

/// The class of CPU a benchmark ran on: what decides its speed ratios, so that figures from
/// different hosts are never compared as if they were one (`posekit bench` prints it first and
/// records it in `--json`; docs/speed.md keeps one table per class).
///
/// On x86-64 the vendor, family, model and stepping come from CPUID (leaf 1 with its extended
/// fields) and the brand string from leaves 0x80000002–4; on aarch64 from /proc/cpuinfo's
/// implementer and part. Caches are the ones Linux reports for CPU 0 (/sys/devices/system/cpu).
public struct CPUClass: Equatable, Sendable {
    /// The brand string, e.g. `AMD EPYC` or `Intel(R) Xeon(R) Processor` (what a KVM guest is told).
    public let modelName: String
    /// `AuthenticAMD`, `GenuineIntel`, or on aarch64 the implementer (`ARM`, `Apple`, ...).
    public let vendor: String
    /// CPUID's display family, model and stepping (x86-64), or implementer/part numbers (aarch64).
    public let family: Int, model: Int, stepping: Int
    /// The microarchitecture the family and model name, when this table knows them: `Zen 1`,
    /// `Zen 3`, `Sapphire Rapids`, `Neoverse N1`, ...; nil otherwise.
    public let microarchitecture: String?
    /// The hypervisor's signature when the OS runs under one (`KVMKVMKVM`, `Microsoft Hv`), else nil.
    public let hypervisor: String?
    /// Logical cores this process may use.
    public let logicalCores: Int
    /// Data and unified caches of CPU 0, innermost first: level, size in bytes, and how many
    /// logical CPUs share it.
    public let caches: [Cache]
    /// The vector level (`AVX2`, `AVX-512`, `NEON`) and the extensions reduced precision uses.
    public let vectorLevel: String, dotProducts: [String]

    public struct Cache: Equatable, Sendable {
        public let level: Int, bytes: Int, sharedBy: Int
    }

    /// The CPU this process runs on (features as ``HostCPU/features`` sees them).
    public static let host = CPUClass(features: HostCPU.features)

    init(features: Set<CPUFeature>) {
        var identity = Self.identity()
        if identity.modelName.isEmpty { identity.modelName = Self.procCPUInfo("model name") ?? "unknown" }
        modelName = identity.modelName
        vendor = identity.vendor
        (family, model, stepping) = (identity.family, identity.model, identity.stepping)
        microarchitecture = Self.microarchitecture(vendor: vendor, family: family, model: model)
        hypervisor = identity.hypervisor
        logicalCores = ProcessInfo.processInfo.activeProcessorCount
        caches = Self.linuxCaches()
        vectorLevel = HostCPU.level(of: features)
        let dot: [(CPUFeature, String)] = [(.avx512vnni, "AVX512-VNNI"), (.avxvnni, "AVX-VNNI"), (.avx512bf16, "AVX512-BF16"),
                                          (.amxint8, "AMX-INT8"), (.asimddp, "dot product (sdot)")]
        dotProducts = dot.filter { features.contains($0.0) }.map(\.1)
    }

    /// One line, e.g. `AMD EPYC (AuthenticAMD family 23 model 1 stepping 2: Zen 1), KVM guest; AVX2,
    /// no dot-product instructions; 2 logical cores; L1d 32 KiB, L2 512 KiB, L3 8 MiB (shared by 2)`.
    public var summary: String {
        var identity = "\(vendor) family \(family) model \(model) stepping \(stepping)"
        if let microarchitecture { identity += ": \(microarchitecture)" }
        var line = "\(modelName) (\(identity))"
        if let hypervisor { line += ", \(hypervisor == "KVMKVMKVM" ? "KVM" : hypervisor) guest" }
        line += "; \(vectorLevel), " + (dotProducts.isEmpty ? "no dot-product instructions" : dotProducts.joined(separator: ", "))
        line += "; \(logicalCores) logical cores"
        if !caches.isEmpty {
            line += "; " + caches.map { cache in
                "L\(cache.level)\(cache.level == 1 ? "d" : "") \(Self.size(cache.bytes))" + (cache.sharedBy > 1 ? " (shared by \(cache.sharedBy))" : "")
            }.joined(separator: ", ")
        }
        return line
    }

    /// A short key that groups results from the same class of CPU, e.g. `AuthenticAMD-23-1-AVX2-2c`.
    public var key: String {
        "\(vendor.replacingOccurrences(of: " ", with: ""))-\(family)-\(model)-\(vectorLevel)-\(logicalCores)c"
    }

    /// For `--json` reports.
    public var json: [String: Any] {
        [
            "model_name": modelName, "vendor": vendor, "family": family, "model": model, "stepping": stepping,
            "microarchitecture": microarchitecture ?? NSNull(), "hypervisor": hypervisor ?? NSNull(),
            "logical_cores": logicalCores, "vector_level": vectorLevel, "dot_products": dotProducts,
            "caches": caches.map { ["level": $0.level, "bytes": $0.bytes, "shared_by": $0.sharedBy] }, "key": key,
        ]
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes >> 10) KiB"
    }

    // MARK: - identity

    struct Identity {
        var modelName = "", vendor = "unknown", family = 0, model = 0, stepping = 0
        var hypervisor: String? = nil
    }

    static func identity() -> Identity {
        var identity = Identity()
        #if arch(x86_64)
        var r0: [UInt32] = [0, 0, 0, 0], r1: [UInt32] = [0, 0, 0, 0]
        guard posekit_cpuid(0, 0, &r0) != 0 else { return identity }
        identity.vendor = text([r0[1], r0[3], r0[2]])
        _ = posekit_cpuid(1, 0, &r1)
        let eax = r1[0], baseFamily = Int((eax >> 8) & 0xF), baseModel = Int((eax >> 4) & 0xF)
        identity.family = baseFamily == 0xF ? baseFamily + Int((eax >> 20) & 0xFF) : baseFamily
        identity.model = baseFamily == 0xF || baseFamily == 0x6 ? baseModel | Int((eax >> 16) & 0xF) << 4 : baseModel
        identity.stepping = Int(eax & 0xF)
        var brand: [UInt32] = []
        var top: [UInt32] = [0, 0, 0, 0]
        if posekit_cpuid(0x8000_0000, 0, &top) != 0, top[0] >= 0x8000_0004 {
            for leaf: UInt32 in 0x8000_0002...0x8000_0004 {
                var r: [UInt32] = [0, 0, 0, 0]
                _ = posekit_cpuid(leaf, 0, &r)
                brand += r
            }
        }
        identity.modelName = text(brand).trimmingCharacters(in: .whitespaces)
        var signature = [CChar](repeating: 0, count: 13)
        if posekit_hypervisor_signature(&signature) != 0 {
            let name = String(decoding: signature.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            identity.hypervisor = name.trimmingCharacters(in: .whitespaces).isEmpty ? "hypervisor" : name
        }
        #elseif arch(arm64)
        let implementer = procCPUInfo("CPU implementer").flatMap { Int($0.dropFirst(2), radix: 16) } ?? 0
        let part = procCPUInfo("CPU part").flatMap { Int($0.dropFirst(2), radix: 16) } ?? 0
        identity.vendor = [0x41: "ARM", 0x61: "Apple", 0x51: "Qualcomm", 0x48: "HiSilicon", 0xC0: "Ampere"][implementer]
            ?? String(format: "implementer 0x%02x", implementer)
        (identity.family, identity.model) = (implementer, part)
        identity.stepping = procCPUInfo("CPU revision").flatMap { Int($0) } ?? 0
        #endif
        return identity
    }

    /// The bytes of CPUID registers as text (ASCII, little-endian per register), NULs dropped.
    static func text(_ registers: [UInt32]) -> String {
        var bytes: [UInt8] = []
        for register in registers { for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8((register >> UInt32(shift)) & 0xFF)) } }
        return String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
    }

    /// The microarchitectures PoseKit was measured on, and their neighbours (by family and model).
    static func microarchitecture(vendor: String, family: Int, model: Int) -> String? {
        switch (vendor, family) {
        case ("AuthenticAMD", 0x17):
            switch model {
            case 0x00...0x0F: return model >= 0x08 ? "Zen+" : "Zen 1"
            case 0x10...0x2F: return "Zen 1 / Zen+"
            case 0x30...0x7F: return "Zen 2"
            default: return nil
            }
        case ("AuthenticAMD", 0x19):
            switch model {
            case 0x00...0x0F, 0x20...0x5F: return "Zen 3"
            case 0x10...0x1F, 0x60...0xAF: return "Zen 4"
            default: return nil
            }
        case ("AuthenticAMD", 0x1A): return "Zen 5"
        case ("GenuineIntel", 6):
            switch model {
            case 0x3C, 0x3F, 0x45, 0x46: return "Haswell"
            case 0x3D, 0x47, 0x4F, 0x56: return "Broadwell"
            case 0x4E, 0x5E, 0x8E, 0x9E, 0xA5, 0xA6: return "Skylake (client) / Kaby, Coffee, Comet Lake"
            case 0x55: return "Skylake-SP / Cascade Lake"
            case 0x6A, 0x6C: return "Ice Lake-SP"
            case 0x7D, 0x7E: return "Ice Lake (client)"
            case 0x8C, 0x8D: return "Tiger Lake"
            case 0x97, 0x9A, 0xB7, 0xBA, 0xBF: return "Alder Lake / Raptor Lake"
            case 0x8F: return "Sapphire Rapids"
            case 0xCF: return "Emerald Rapids"
            case 0xAD, 0xAE: return "Granite Rapids"
            default: return nil
            }
        case ("ARM", 0x41):
            switch model {
            case 0xD03: return "Cortex-A53"
            case 0xD08: return "Cortex-A72"
            case 0xD0B: return "Cortex-A76"
            case 0xD0C: return "Neoverse N1"
            case 0xD40: return "Neoverse V1"
            case 0xD49: return "Neoverse N2"
            case 0xD4F: return "Neoverse V2"
            default: return nil
            }
        default: return nil
        }
    }

    // MARK: - Linux

    /// The first value of `field` in /proc/cpuinfo.
    static func procCPUInfo(_ field: String) -> String? {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
        for line in info.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == field {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// CPU 0's data and unified caches from sysfs (`index*/level`, `type`, `size`, `shared_cpu_list`).
    static func linuxCaches(root: String = "/sys/devices/system/cpu/cpu0/cache") -> [Cache] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return [] }
        var caches: [Cache] = []
        for entry in entries.sorted() where entry.hasPrefix("index") {
            func read(_ name: String) -> String? {
                (try? String(contentsOfFile: "\(root)/\(entry)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard let level = read("level").flatMap({ Int($0) }), let type = read("type"), type != "Instruction",
                  let sizeText = read("size"), let bytes = parseSize(sizeText) else { continue }
            caches.append(Cache(level: level, bytes: bytes, sharedBy: read("shared_cpu_list").map(countCPUs) ?? 1))
        }
        return caches.sorted { $0.level < $1.level }
    }

    /// `32K`, `8192K`, `1M` to bytes (nil for anything else).
    static func parseSize(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        if let last = text.last, let unit = units[last], let value = Int(text.dropLast()) { return value * unit }
        return Int(text)
    }

    /// The CPUs in a list such as `0-1,4,6-7`.
    static func countCPUs(_ list: String) -> Int {
        list.split(separator: ",").reduce(0) { total, range in
            let ends = range.split(separator: "-").compactMap { Int($0) }
            return total + (ends.count == 2 ? max(0, ends[1] - ends[0] + 1) : 1)
        }
    }
}
