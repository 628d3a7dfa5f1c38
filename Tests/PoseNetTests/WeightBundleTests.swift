import Foundation
import Testing
import Tensor
@testable import PoseNet
@testable import PoseNetImport
import PoseCore

/// The `.pkw` container: round trips, integrity checks, fp16 handling, helpers.
@Suite struct WeightBundleTests {
    static func sampleManifest() -> WeightManifest {
        WeightManifest(family: PoseNetWeightNames.family, widthMultiplier: 0.5, blockStrides: MobileNetArchitecture.strides050And075,
                       outputStride: 16, outputStrideIsFromSource: false, preprocessing: .posenetMobileNet,
                       source: .init(fileName: "test.pb", sha256: String(repeating: "ab", count: 32), format: "tensorflow-graphdef"),
                       license: .init(spdx: "Apache-2.0", attribution: "test attribution"))
    }

    /// A bundle with an fp32 tensor, an fp16 tensor and an odd-sized one (padding between).
    static func sampleWriter() throws -> (WeightBundleWriter, [String: [Float]]) {
        var random = FixtureRandom(state: 42)
        var writer = WeightBundleWriter(manifest: sampleManifest())
        let a = random.floats(3 * 3 * 3 * 5)
        let b = random.floats(7).map { Float(Float16($0)) }   // exactly representable → exact round trip
        let c = random.floats(1 * 1 * 5 * 3)
        try writer.add(name: "a", shape: [3, 3, 3, 5], layout: .hwio, values: a, storage: .fp32)
        try writer.add(name: "b", shape: [7], layout: .c, values: b, storage: .fp16)
        try writer.add(name: "c", shape: [1, 1, 5, 3], layout: .hwio, values: c, storage: .fp32)
        return (writer, ["a": a, "b": b, "c": c])
    }

    static func write(_ bytes: [UInt8], name: String = "w.pkw") throws -> URL {
        let url = try SharedData.scratchDirectory().appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test func roundTripPreservesManifestAndValues() throws {
        let (writer, values) = try Self.sampleWriter()
        let url = try Self.scratchURL()
        try writer.write(to: url)
        let bundle = try WeightBundle(contentsOf: url)
        #expect(bundle.tensorNames == ["a", "b", "c"])
        #expect(bundle.manifest == writer.manifest)
        #expect(bundle.manifest.family == "posenet-mobilenet-v1")
        #expect(bundle.manifest.parameterCount == 135 + 7 + 15)
        for name in ["a", "b", "c"] {
            let t = try bundle.tensor(named: name)
            #expect(t.shape == bundle.entry(named: name)!.shape)
            #expect(t.scalars == values[name]!)
        }
        #expect(bundle.entry(named: "b")!.dtype == .fp16)
        #expect(bundle.entry(named: "b")!.byteCount == 14)
        for entry in bundle.manifest.tensors { #expect(entry.offset % 64 == 0) }
        let stored = try bundle.storedBytes(named: "b")
        #expect(stored.count == 14)
        #expect(throws: WeightBundleError.missingTensor(file: url.path, name: "zz")) { try bundle.tensor(named: "zz") }
    }

    static func scratchURL() throws -> URL { try SharedData.scratchDirectory().appendingPathComponent("bundle.pkw") }

    @Test func fp16StorageRoundsToNearestHalf() throws {
        var writer = WeightBundleWriter(manifest: Self.sampleManifest())
        let values: [Float] = [0.1, -1.0 / 3, 65504, 1e-7, 0]
        try writer.add(name: "h", shape: [5], layout: .c, values: values, storage: .fp16)
        let url = try Self.scratchURL()
        try writer.write(to: url)
        let loaded = try WeightBundle(contentsOf: url).tensor(named: "h").scalars
        #expect(loaded == values.map { Float(Float16($0)) })
    }

    @Test func writerRejectsInconsistentTensors() throws {
        var writer = WeightBundleWriter(manifest: Self.sampleManifest())
        #expect(throws: WeightBundleError.self) { try writer.add(name: "x", shape: [2, 2], layout: .c, values: [1, 2, 3], storage: .fp32) }
        #expect(throws: WeightBundleError.self) { try writer.add(name: "x", shape: [0], layout: .c, values: [], storage: .fp32) }
        try writer.add(name: "x", shape: [1], layout: .c, values: [1], storage: .fp32)
        #expect(throws: WeightBundleError.self) { try writer.add(name: "x", shape: [1], layout: .c, values: [1], storage: .fp32) }
    }

    // MARK: integrity

    @Test func everySingleByteFlipAfterTheHeaderFailsTheChecksum() throws {
        let (writer, _) = try Self.sampleWriter()
        let good = try writer.encoded()
        // Flip one byte at a time across manifest, padding and data; each must be caught.
        var checked = 0
        for offset in stride(from: WeightBundleHeader.size, to: good.count, by: 7) {
            var bad = good
            bad[offset] ^= 0x20
            let url = try Self.write(bad)
            do {
                _ = try WeightBundle(contentsOf: url)
                Issue.record("flip at byte \(offset) was not detected")
            } catch let error as WeightBundleError {
                guard case .checksumMismatch = error else { Issue.record("flip at \(offset): \(error)"); continue }
                #expect(error.description.contains(url.path))
                #expect(!error.description.contains("\n"))
            }
            checked += 1
        }
        #expect(checked > 100)
    }

    @Test func truncatedFilesAreRefused() throws {
        let (writer, _) = try Self.sampleWriter()
        let good = try writer.encoded()
        for length in [0, 10, 63, 64, 200, good.count - 1] {
            let url = try Self.write(Array(good.prefix(length)))
            #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: url) }
            do { _ = try WeightBundle(contentsOf: url) } catch let error as WeightBundleError {
                guard case .truncated = error else { Issue.record("length \(length): \(error)"); continue }
                #expect(error.description.hasPrefix(url.path))
            }
        }
    }

    @Test func wrongMagicAndVersionAreRefused() throws {
        let (writer, _) = try Self.sampleWriter()
        var bytes = try writer.encoded()
        bytes[0] = UInt8(ascii: "X")
        let notBundle = try Self.write(bytes)
        #expect(throws: WeightBundleError.notABundle(file: notBundle.path)) { try WeightBundle(contentsOf: notBundle) }

        bytes = try writer.encoded()
        bytes[8] = 2  // format version 2
        let future = try Self.write(bytes)
        #expect(throws: WeightBundleError.unsupportedVersion(file: future.path, version: 2, supported: 1)) { try WeightBundle(contentsOf: future) }
        #expect(WeightBundleError.unsupportedVersion(file: "f", version: 2, supported: 1).description.contains("version 2"))

        let missing = URL(fileURLWithPath: "/nonexistent/weights.pkw")
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: missing) }
    }

    @Test func inconsistentManifestWithValidChecksumIsRefused() throws {
        // A tensor entry pointing past the data: re-sign the file so only the manifest check can catch it.
        let (writer, _) = try Self.sampleWriter()
        var manifest = writer.manifest
        manifest.tensors[2].offset = 1 << 20
        let bytes = try Self.signed(manifest: manifest, data: [UInt8](repeating: 0, count: 1024))
        let url = try Self.write(bytes)
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: url) }
        do { _ = try WeightBundle(contentsOf: url) } catch let error as WeightBundleError {
            guard case .corrupt(_, let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("'c'"))
        }
        // Not JSON at all.
        let garbage = try Self.write(try Self.signed(manifestBytes: Array("{not json".utf8), data: []))
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: garbage) }
    }

    /// A file with a correct header and checksum around arbitrary manifest/data.
    static func signed(manifest: WeightManifest, data: [UInt8]) throws -> [UInt8] {
        try signed(manifestBytes: [UInt8](JSONEncoder().encode(manifest)), data: data)
    }

    static func signed(manifestBytes json: [UInt8], data: [UInt8]) throws -> [UInt8] {
        let dataOffset = WeightBundleHeader.aligned(64 + json.count)
        var file = [UInt8](repeating: 0, count: 64) + json
        file += [UInt8](repeating: 0, count: dataOffset - file.count) + data
        let sum = file.withUnsafeBytes { WeightChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[64...])) }
        let header = WeightBundleHeader(manifestLength: UInt64(json.count), dataOffset: UInt64(dataOffset), fileLength: UInt64(file.count), checksum: sum)
        file.replaceSubrange(0..<64, with: header.encoded())
        return file
    }

    // MARK: building blocks

    @Test func checksumMatchesAnIndependentByteWiseDefinition() {
        // Reference: the documented definition, written over bytes with explicit padding.
        func reference(_ bytes: [UInt8]) -> UInt64 {
            var padded = bytes
            while padded.count % 8 != 0 { padded.append(0) }
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for i in stride(from: 0, to: padded.count, by: 8) {
                var w: UInt64 = 0
                for j in 0..<8 { w += UInt64(padded[i + j]) << (8 * UInt64(j)) }
                h = (h ^ w) &* 1_099_511_628_211
            }
            return (h ^ UInt64(bytes.count)) &* 1_099_511_628_211
        }
        var random = FixtureRandom(state: 9)
        for length in [0, 1, 7, 8, 9, 63, 64, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(bytes.withUnsafeBytes(WeightChecksum.fnv1a64Words) == reference(bytes))
        }
        // Appending a zero byte changes the sum (length is mixed in).
        #expect([UInt8]([1, 2, 3]).withUnsafeBytes(WeightChecksum.fnv1a64Words) != [UInt8]([1, 2, 3, 0]).withUnsafeBytes(WeightChecksum.fnv1a64Words))
    }

    @Test func sha256MatchesStandardVectors() {
        #expect(SHA256.hexDigest([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }

    @Test func canonicalOrderHas62TensorsInBlockOrder() {
        let names = PoseNetWeightNames.canonicalOrder()
        #expect(names.count == 62)
        #expect(Set(names).count == 62)
        #expect(names[0] == "MobilenetV1/Conv2d_0/weights")
        #expect(names[2] == "MobilenetV1/Conv2d_1_depthwise/depthwise_weights")
        #expect(names[5] == "MobilenetV1/Conv2d_1_pointwise/biases")
        #expect(names[53] == "MobilenetV1/Conv2d_13_pointwise/biases")
        #expect(names[54] == "MobilenetV1/heatmap_2/weights")
        #expect(names[61] == "MobilenetV1/displacement_bwd_2/biases")
    }

    // MARK: model locator

    @Test func locatorFindsNamesInTheEnvironmentDirectoryAndExplainsMisses() throws {
        let dir = try SharedData.scratchDirectory()
        let (writer, _) = try Self.sampleWriter()
        try writer.write(to: dir.appendingPathComponent("mobilenet050.pkw"))
        let elsewhere = try SharedData.scratchDirectory().path
        let found = try ModelLocator.resolve("mobilenet050", environment: ["POSEKIT_WEIGHTS_DIR": dir.path], currentDirectory: elsewhere)
        #expect(found.path == dir.appendingPathComponent("mobilenet050.pkw").standardizedFileURL.path)
        // A path is used as is.
        let direct = try ModelLocator.resolve(found.path, environment: [:], currentDirectory: elsewhere)
        #expect(direct.path == found.path)
        // A name found in the current directory's Weights/ folder.
        let cwd = try SharedData.scratchDirectory()
        try writer.write(to: cwd.appendingPathComponent("Weights/custom-model.pkw"))
        let inCwd = try ModelLocator.resolve("custom-model", environment: [:], currentDirectory: cwd.path)
        #expect(inCwd.path == cwd.appendingPathComponent("Weights/custom-model.pkw").standardizedFileURL.path)
        do {
            _ = try ModelLocator.resolve("mobilenet999", environment: ["POSEKIT_WEIGHTS_DIR": dir.path], currentDirectory: elsewhere)
            Issue.record("a missing model resolved")
        } catch let error as ModelLocator.NotFound {
            #expect(error.description.contains("make weights"))
            #expect(error.description.contains(dir.path))
            #expect(!error.description.contains("\n"))
        }
        #expect(throws: ModelLocator.NotFound.self) { try ModelLocator.resolve("/no/such/file.pkw", environment: [:], currentDirectory: elsewhere) }
    }
}
