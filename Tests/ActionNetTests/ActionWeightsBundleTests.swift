import Foundation
import Testing
import Tensor
@_spi(Training) @testable import ActionNet
@testable import ActionTraining

/// ActionNet's weights in the shared bundle container, the earlier `PKACTN01` format, and damage.
struct ActionWeightsBundleTests {
    /// A fresh scratch directory for one test, which removes it when it ends (also on failure):
    ///
    ///     let dir = try Self.scratchDirectory()
    ///     defer { try? FileManager.default.removeItem(at: dir) }
    static func scratchDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-actionweights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func randomNet(_ seed: UInt64) -> TemporalConvNet {
        let net = Fixtures.randomNet(seed: seed)
        var rng = SeededRandom(seed: seed)
        net.parameterValues = net.parameterValues.map { $0 + Float(0.01 * rng.gaussian()) }  // non-zero biases too
        return net
    }

    @Test func bundleRoundTripsEveryParameterAndSetting() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let net = Self.randomNet(21)
        let url = dir.appendingPathComponent("a.pkw")
        try ActionWeightsFile.encode(net, fps: 25, windowStride: 7, training: ["seed": "1"]).write(to: url)
        let bundle = try WeightBundle(contentsOf: url)
        #expect(bundle.manifest.kind == "actionnet")
        #expect(bundle.tensorNames.first == "conv0/weights" && bundle.tensorNames.last == "dense/biases")
        #expect(bundle.entry(named: "conv0/weights")?.shape == [1, 9, 51, 8])
        #expect(bundle.entry(named: "conv0/weights")?.layout == .hwio)
        // The tensors are the flat parameter vector cut in order.
        let joined = try bundle.tensorNames.flatMap { try bundle.tensor(named: $0).scalars }
        #expect(joined == net.parameterValues)
        let (back, header) = try ActionWeightsFile.load(contentsOf: url)
        #expect(back.parameterValues == net.parameterValues)
        #expect(header.architecture == net.architecture && header.fps == 25 && header.windowStride == 7 && header.training["seed"] == "1")
    }

    /// A file of the earlier format loads as is, and converts to a bundle with the same network.
    @Test func legacyFilesStillLoadAndConvert() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let net = Self.randomNet(22)
        let legacy = dir.appendingPathComponent("old.pkw")
        let data = try ActionWeightsFile.encodeLegacy(net, fps: 30, windowStride: 10, training: ["seed": "9"])
        #expect(data.starts(with: Array("PKACTN01".utf8)))
        try data.write(to: legacy)
        let (old, oldHeader) = try ActionWeightsFile.load(contentsOf: legacy)
        #expect(old.parameterValues == net.parameterValues && oldHeader.training["seed"] == "9")
        let converted = dir.appendingPathComponent("new.pkw")
        try ActionWeightsFile.encode(old, fps: oldHeader.fps, windowStride: oldHeader.windowStride, training: oldHeader.training).write(to: converted)
        let (new, newHeader) = try ActionWeightsFile.load(contentsOf: converted)
        #expect(new.parameterValues == net.parameterValues && newHeader == oldHeader)
        let window: [Float] = (0..<(60 * 51)).map { (i: Int) -> Float in Float((i * 37) % 101) / 50 - 1 }
        #expect(new.probabilities(features: window) == old.probabilities(features: window))
        // Damage to the old format is still refused.
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(data.dropLast(4)) }
        var bad = data; bad[12] = 0x41
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(bad) }
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(Data()) }
    }

    @Test func corruptTruncatedAndWrongKindBundlesAreRefusedInOneLine() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let net = Self.randomNet(23)
        let good = [UInt8](try ActionWeightsFile.encode(net, fps: 30, windowStride: 10, training: [:]))
        func load(_ bytes: [UInt8]) throws -> Error? {
            let url = dir.appendingPathComponent("x.pkw")
            try Data(bytes).write(to: url)
            do { _ = try ActionWeightsFile.load(contentsOf: url); return nil } catch { return error }
        }
        var flipped = good; flipped[good.count - 3] ^= 0x10
        let checksum = try #require(try load(flipped))
        #expect("\(checksum)".contains("checksum mismatch"))
        let truncated = try #require(try load(Array(good.dropLast(100))))
        #expect("\(truncated)".contains("truncated"))
        // A PoseNet bundle is not ActionNet weights.
        var writer = WeightBundleWriter(manifest: WeightManifest(
            family: "posenet-mobilenet-v1", widthMultiplier: 0.5, blockStrides: [2], outputStride: 16, outputStrideIsFromSource: false,
            preprocessing: .minusOneToOne, source: .init(fileName: "p.pb", sha256: "", format: "tensorflow-graphdef"),
            license: .init(spdx: "Apache-2.0", attribution: "")))
        try writer.add(name: "b", shape: [2], layout: .c, values: [1, 2], storage: .fp32)
        let wrongKind = try #require(try load(writer.encoded()))
        #expect("\(wrongKind)".contains("holds posenet weights, not actionnet weights"))
        for error in [checksum, truncated, wrongKind] { #expect(!"\(error)".contains("\n")) }
    }

    /// The committed weights are an actionnet bundle (checksummed) of the default architecture.
    @Test func committedWeightsAreAnActionNetBundle() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Weights/actionnet.pkw")
        let bundle = try WeightBundle(contentsOf: url)
        try bundle.requireKind("actionnet")
        let (net, header) = try ActionWeightsFile.load(bundle: bundle)
        #expect(net.architecture == TemporalConvNet.Architecture() && header.fps == 30 && header.windowStride == 10)
        #expect(bundle.manifest.dtypes == [.fp32] && bundle.manifest.parameterCount == net.parameterCount)
    }

    /// A bundle whose manifest claims the largest architecture (1024 channels, kernel 31, a
    /// 4096-frame window: 164 million parameters) but holds no tensors is refused by comparing
    /// the claim with its size, before the 656 MB the claim asks for are allocated.
    @Test func claimedArchitectureIsCheckedAgainstTheFileBeforeAllocating() throws {
        let dir = try Self.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var architecture = TemporalConvNet.Architecture()
        (architecture.channels1, architecture.channels2, architecture.kernel, architecture.windowLength) = (1024, 1024, 31, 4096)
        #expect(try TemporalConvNet.parameterCount(of: architecture) > 160_000_000)
        let section = ActionWeightsFile.ActionNetSection(architecture: architecture, fps: 30, windowStride: 10,
                                                         classes: ActionClass.allCases.map(\.name))
        let manifest = try WeightManifest(kind: ActionWeightsFile.kind, name: "actionnet", section: section,
                                          source: .init(fileName: "x", sha256: "", format: "test"),
                                          license: .init(spdx: "Apache-2.0", attribution: "test"))
        let url = dir.appendingPathComponent("claims.pkw")
        try Data(WeightBundleWriter(manifest: manifest).encoded()).write(to: url)
        #expect(try Data(contentsOf: url).count < 4096)
        #expect {
            try ActionWeightsFile.load(contentsOf: url)
        } throws: { error in
            guard case WeightBundleError.corrupt(let file, let detail) = error else { return false }
            return file == url.path && detail.contains("more than the") && detail.contains("file can hold")
        }
    }
}
