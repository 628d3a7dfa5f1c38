import Foundation
import Testing
@testable import Tensor
@testable import PoseNet
@testable import PoseNetImport
import PoseCore
import TestSupport

/// The `.pkw` container: round trips, integrity checks, fp16 handling, helpers.
@Suite struct WeightBundleTests {
    static func sampleManifest() -> WeightManifest {
        WeightManifest(family: PoseNetWeightNames.family, widthMultiplier: 0.5, blockStrides: MobileNetArchitecture.strides050And075,
                       outputStride: 16, outputStrideIsFromSource: false, preprocessing: .minusOneToOne,
                       source: .init(fileName: "test.pb", sha256: String(repeating: "ab", count: 32), format: "tensorflow-graphdef"),
                       license: .init(spdx: "Apache-2.0", attribution: "test attribution"))
    }

    /// A bundle with an fp32 tensor, an fp16 tensor and an odd-sized one (padding between).
    static func sampleWriter() throws -> (WeightBundleWriter, [String: [Float]]) {
        var random = SeededGenerator(seed: 42)
        var writer = WeightBundleWriter(manifest: sampleManifest())
        let a = random.floats(3 * 3 * 3 * 5)
        let b = random.floats(7).map { Float(Float16($0)) }   // exactly representable → exact round trip
        let c = random.floats(1 * 1 * 5 * 3)
        try writer.add(name: "a", shape: [3, 3, 3, 5], layout: .hwio, values: a, storage: .fp32)
        try writer.add(name: "b", shape: [7], layout: .c, values: b, storage: .fp16)
        try writer.add(name: "c", shape: [1, 1, 5, 3], layout: .hwio, values: c, storage: .fp32)
        return (writer, ["a": a, "b": b, "c": c])
    }

    /// Writes `bytes` to `directory/name` (the same name again replaces the file).
    static func write(_ bytes: [UInt8], name: String = "w.pkw", in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    @Test func roundTripPreservesManifestAndValues() throws {
        let (writer, values) = try Self.sampleWriter()
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bundle.pkw")
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

    @Test func fp16StorageRoundsToNearestHalf() throws {
        var writer = WeightBundleWriter(manifest: Self.sampleManifest())
        let values: [Float] = [0.1, -1.0 / 3, 65504, 1e-7, 0]
        try writer.add(name: "h", shape: [5], layout: .c, values: values, storage: .fp16)
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("bundle.pkw")
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
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (writer, _) = try Self.sampleWriter()
        let good = try writer.encoded()
        // Flip one byte at a time across manifest, padding and data; each must be caught.
        var checked = 0
        for offset in stride(from: WeightBundleHeader.size, to: good.count, by: 7) {
            var bad = good
            bad[offset] ^= 0x20
            let url = try Self.write(bad, in: dir)
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
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (writer, _) = try Self.sampleWriter()
        let good = try writer.encoded()
        for length in [0, 10, 63, 64, 200, good.count - 1] {
            let url = try Self.write(Array(good.prefix(length)), in: dir)
            #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: url) }
            do { _ = try WeightBundle(contentsOf: url) } catch let error as WeightBundleError {
                guard case .truncated = error else { Issue.record("length \(length): \(error)"); continue }
                #expect(error.description.hasPrefix(url.path))
            }
        }
    }

    @Test func wrongMagicAndVersionAreRefused() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (writer, _) = try Self.sampleWriter()
        var bytes = try writer.encoded()
        bytes[0] = UInt8(ascii: "X")
        let notBundle = try Self.write(bytes, in: dir)
        #expect(throws: WeightBundleError.notABundle(file: notBundle.path)) { try WeightBundle(contentsOf: notBundle) }

        bytes = try writer.encoded()
        bytes[8] = 3  // format version 3
        let future = try Self.write(bytes, in: dir)
        #expect(throws: WeightBundleError.unsupportedVersion(file: future.path, version: 3, supported: 2)) { try WeightBundle(contentsOf: future) }
        #expect(WeightBundleError.unsupportedVersion(file: "f", version: 3, supported: 2).description.contains("version 3"))

        let missing = URL(fileURLWithPath: "/nonexistent/weights.pkw")
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: missing) }
    }

    @Test func inconsistentManifestWithValidChecksumIsRefused() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A tensor entry pointing past the data: re-sign the file so only the manifest check can catch it.
        let (writer, _) = try Self.sampleWriter()
        var manifest = writer.manifest
        manifest.tensors[2].offset = 1 << 20
        let bytes = try Self.signed(manifest: manifest, data: [UInt8](repeating: 0, count: 1024))
        let url = try Self.write(bytes, in: dir)
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: url) }
        do { _ = try WeightBundle(contentsOf: url) } catch let error as WeightBundleError {
            guard case .corrupt(_, let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("'c'"))
        }
        // Not JSON at all.
        let garbage = try Self.write(try Self.signed(manifestBytes: Array("{not json".utf8), data: []), in: dir)
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

    /// The input scaling is one type, `InputScaling`, from the manifest to the writer; on disk it
    /// keeps the keys bundles always had.
    @Test func inputScalingKeepsTheManifestKeys() throws {
        let json = try JSONEncoder().encode(Self.sampleManifest())
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let network = try #require(object["network"] as? [String: Any])
        let scaling = try #require(network["preprocessing"] as? [String: Any])
        #expect(Set(scaling.keys) == ["colorOrder", "scale", "bias"])
        #expect(scaling["colorOrder"] as? String == "RGB")
        #expect(abs(try #require(scaling["scale"] as? Double) - 2.0 / 255.0) < 1e-9)
        #expect(scaling["bias"] as? [Double] == [-1, -1, -1])
        #expect(try JSONDecoder().decode(WeightManifest.self, from: json).preprocessing == .minusOneToOne)
    }

    /// A bundle whose input scaling cannot be applied (2 biases, BGR order, a scale beyond float)
    /// is refused at load, naming the bundle and the problem, instead of running on defaults.
    @Test(arguments: [
        ("bias", "[-1, -1]", "3 finite biases"),
        ("colorOrder", "\"BGR\"", "color order \"BGR\""),
        ("scale", "1e300", "a finite scale, got 1e+300"),
    ])
    func badInputScalingIsRefusedNamingTheBundle(key: String, valueJSON: String, reason: String) throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(Self.sampleManifest())) as? [String: Any])
        var network = try #require(object["network"] as? [String: Any])
        var scaling = try #require(network["preprocessing"] as? [String: Any])
        scaling[key] = try JSONSerialization.jsonObject(with: Data(valueJSON.utf8), options: [.fragmentsAllowed])
        network["preprocessing"] = scaling
        object["network"] = network
        let json = try JSONSerialization.data(withJSONObject: object)
        let url = try Self.write(try Self.signed(manifestBytes: [UInt8](json), data: []), in: dir)
        let bundle = try WeightBundle(contentsOf: url)
        #expect {
            try PoseNetWeights(bundle: bundle)
        } throws: { error in
            guard case WeightBundleError.corrupt(let file, let detail) = error else { return false }
            return file == url.path && detail.contains(reason) && detail.contains("preprocessing")
        }
    }

    /// A bundle with a NaN weight, or a tensor of the wrong shape, is refused at load with an
    /// error naming the bundle's file (a NaN would otherwise surface as nonsense poses, blamed
    /// on the image).
    @Test func badTensorValuesAndShapesAreRefusedAtLoadNamingTheBundle() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet050"))
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func copy(named file: String, changing victim: String, _ change: (inout [Float], inout [Int]) -> Void) throws -> URL {
            var writer = WeightBundleWriter(manifest: bundle.manifest)
            for entry in bundle.manifest.tensors {
                var values = try bundle.tensor(named: entry.name).scalars
                var shape = entry.shape
                if entry.name == victim { change(&values, &shape) }
                try writer.add(name: entry.name, shape: shape, layout: entry.layout, values: values, storage: .fp32)
            }
            return try Self.write(writer.encoded(), name: file, in: dir)
        }
        let victim = PoseNetWeightNames.pointwiseWeights(5)
        let nan = try copy(named: "nan.pkw", changing: victim) { values, _ in values[7] = .nan }
        let infinite = try copy(named: "inf.pkw", changing: victim) { values, _ in values[0] = -.infinity }
        let reshaped = try copy(named: "shape.pkw", changing: victim) { _, shape in shape = [shape.reduce(1, *)] }
        for url in [nan, infinite, reshaped] {
            #expect {
                try PoseNetWeights(bundle: WeightBundle(contentsOf: url))
            } throws: { error in
                let text = String(describing: error)
                return text.contains(url.path) && text.contains(victim) && (url == reshaped || text.contains("NaN or infinite"))
            }
        }
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
        var random = SeededGenerator(seed: 9)
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

    @Test func locatorSearchesTheEnvironmentThenTheUserThenTheCheckoutAndExplainsMisses() throws {
        let (writer, _) = try Self.sampleWriter()
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Each place its own folder of the one scratch directory (the writer creates them).
        let envDir = dir.appendingPathComponent("env"), home = dir.appendingPathComponent("home")
        let checkout = dir.appendingPathComponent("checkout/Weights")
        let userDir = home.appendingPathComponent(".local/share/posekit/weights")
        try writer.write(to: envDir.appendingPathComponent("mobilenet050.pkw"))
        try writer.write(to: userDir.appendingPathComponent("mobilenet050.pkw"))
        try writer.write(to: userDir.appendingPathComponent("mobilenet075.pkw"))
        try writer.write(to: checkout.appendingPathComponent("mobilenet075.pkw"))
        try writer.write(to: checkout.appendingPathComponent("actionnet.pkw"))
        let elsewhere = dir.appendingPathComponent("elsewhere").path
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        let env = ["POSEKIT_WEIGHTS_DIR": envDir.path, "HOME": home.path]
        func resolve(_ name: String, _ environment: [String: String], cwd: String = elsewhere) throws -> String {
            try ModelLocator.resolve(name, environment: environment, currentDirectory: cwd, checkoutWeights: checkout.path).path
        }
        #expect(try resolve("mobilenet050", env) == envDir.appendingPathComponent("mobilenet050.pkw").path)
        #expect(try resolve("mobilenet075", env) == userDir.appendingPathComponent("mobilenet075.pkw").path)
        #expect(try resolve("actionnet", env) == checkout.appendingPathComponent("actionnet.pkw").path)
        #expect(try resolve("mobilenet050", ["HOME": home.path]) == userDir.appendingPathComponent("mobilenet050.pkw").path)
        // XDG_DATA_HOME replaces ~/.local/share; a relative one is ignored (the XDG rule).
        let xdg = dir.appendingPathComponent("xdg")
        try writer.write(to: xdg.appendingPathComponent("posekit/weights/mobilenet075.pkw"))
        #expect(try resolve("mobilenet075", ["HOME": home.path, "XDG_DATA_HOME": xdg.path]) == xdg.appendingPathComponent("posekit/weights/mobilenet075.pkw").path)
        #expect(ModelLocator.userDirectory(environment: ["HOME": home.path, "XDG_DATA_HOME": "relative"]) == userDir.path)
        #expect(ModelLocator.userDirectory(environment: [:]) == nil)
        // A path is used as is.
        let found = try resolve("mobilenet050", env)
        #expect(try resolve(found, [:]) == found)
        // Never the current directory (a client's own package root and its Weights/ folder).
        let client = dir.appendingPathComponent("client")
        try writer.write(to: client.appendingPathComponent("Weights/custom-model.pkw"))
        try writer.write(to: client.appendingPathComponent("custom-model.pkw").deletingLastPathComponent().appendingPathComponent("Package.swift"))
        #expect(throws: ModelLocator.NotFound.self) { try resolve("custom-model", [:], cwd: client.path) }
        // A bundle of the catalogue that is not installed: where it was looked for, and the command that installs it.
        do {
            _ = try resolve("palm_detection_lite", env)
            Issue.record("a missing model resolved")
        } catch let error as ModelLocator.NotFound {
            #expect(error.description.contains("run `posekit weights install`"))
            #expect(error.description.contains(envDir.path) && error.description.contains(userDir.path) && error.description.contains(checkout.path))
            #expect(!error.description.contains("\n"))
        }
        // A name that is no bundle of PoseKit's: not sent to weights install; the names and the nearest instead.
        do {
            _ = try resolve("mobilenet999", env)
            Issue.record("a missing model resolved")
        } catch let error as ModelLocator.NotFound {
            #expect(!error.description.contains("weights install"), "\(error.description)")
            #expect(error.description.contains("did you mean 'mobilenet075'?"), "\(error.description)")
            #expect(error.description.contains("bundles: mobilenet075, mobilenet050, pose_detection"), "\(error.description)")
            #expect(!error.description.contains("\n"))
        }
        #expect(throws: ModelLocator.NotFound.self) { try resolve("/no/such/file.pkw", [:]) }
        // The checkout's Weights/ is derived from where the library was compiled: this checkout.
        let root = try #require(ModelLocator.packageRoot())
        #expect(FileManager.default.fileExists(atPath: root + "/Sources/Tensor/Bundle/ModelLocator.swift"))
        #expect(ModelLocator.checkoutWeightsDirectory == root + "/Weights")
    }

    /// A bundle written before the generic manifest (format version 1: PoseNet fields at the top
    /// level) still opens, as kind `posenet` with the same settings.
    @Test func formatVersion1PoseNetBundlesStillOpen() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let manifest = Self.sampleManifest()
        let legacyJSON = """
            {"family":"posenet-mobilenet-v1","widthMultiplier":0.5,"blockStrides":\(manifest.blockStrides),"outputStride":16,\
            "outputStrideIsFromSource":false,"preprocessing":{"colorOrder":"RGB","scale":\(2.0 / 255.0),"bias":[-1,-1,-1]},\
            "source":{"fileName":"test.pb","sha256":"\(manifest.source.sha256)","format":"tensorflow-graphdef","notes":{}},\
            "license":{"spdx":"Apache-2.0","attribution":"test attribution"},\
            "tensors":[{"name":"b","dtype":"fp32","shape":[2],"layout":"C","offset":0,"byteCount":8}]}
            """
        var bytes = try Self.signed(manifestBytes: Array(legacyJSON.utf8), data: [0, 0, 128, 63, 0, 0, 0, 64])
        bytes[8] = 1
        let url = try Self.write(bytes, in: dir)
        let bundle = try WeightBundle(contentsOf: url)
        #expect(bundle.manifest.kind == "posenet" && bundle.manifest.name == "test.pb")
        #expect(bundle.manifest.posenet == manifest.posenet)
        // The scale was written as the double 2/255 (0.00784313725490196): it reads as the float 2/255.
        #expect(bundle.manifest.preprocessing == .minusOneToOne)
        #expect(try bundle.tensor(named: "b").scalars == [1, 2])
        try bundle.requireKind("posenet")
        #expect(throws: WeightBundleError.wrongKind(file: url.path, kind: "posenet", expected: "actionnet")) { try bundle.requireKind("actionnet") }
    }
}
