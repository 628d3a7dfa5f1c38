import Foundation
import Testing
import Tensor
@testable import PoseNet
@testable import PoseNetImport
import PoseCore
import TestSupport

/// Importing the real shared PoseNet models, checked against the reference heads (always) and the
/// numpy reference readers (when python3 has numpy).
@Suite struct ImportSharedModelTests {
    /// Imports `source` into a bundle in `directory` (named after the source) and opens it.
    static func importAndLoad(_ source: URL, in directory: URL) throws -> WeightBundle {
        #expect(FileManager.default.fileExists(atPath: source.path), "shared weights missing at \(source.path); set POSEKIT_SHARED")
        let imported = try WeightImporter.importModel(at: source)
        let url = directory.appendingPathComponent(source.deletingPathExtension().lastPathComponent + ".pkw")
        try imported.bundleWriter().write(to: url)
        return try WeightBundle(contentsOf: url)
    }

    /// Block widths implied by the manifest shapes (read here independently of `WeightManifest.blockChannels`).
    static func blockChannels(_ bundle: WeightBundle) -> [Int] {
        let widths = [bundle.entry(named: PoseNetWeightNames.firstConvWeights)!.shape[3]]
            + (1..<14).map { bundle.entry(named: PoseNetWeightNames.pointwiseWeights($0))!.shape[3] }
        #expect(bundle.manifest.blockChannels == widths)
        return widths
    }

    @Test func coreMLMobileNet075ImportsWithExpectedStructure() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = try Self.importAndLoad(SharedData.coreMLModel, in: dir)
        let m = bundle.manifest
        #expect(m.family == "posenet-mobilenet-v1")
        #expect(m.widthMultiplier == 0.75)
        #expect(m.blockStrides == [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1])
        #expect(m.outputStride == 16 && m.outputStrideIsFromSource)
        #expect(m.tensors.count == 62)
        #expect(m.parameterCount == 1_258_195)          // PROVENANCE: parameters after folding
        #expect(m.dtypes == [.fp16])                     // bias-only batchnorms fold exactly
        #expect(Self.blockChannels(bundle) == [24, 48, 96, 96, 192, 192, 384, 384, 384, 384, 384, 384, 384, 384])
        #expect(bundle.entry(named: "MobilenetV1/heatmap_2/weights")!.shape == [1, 1, 384, 17])
        #expect(bundle.entry(named: "MobilenetV1/offset_2/weights")!.shape == [1, 1, 384, 34])
        #expect(bundle.entry(named: "MobilenetV1/Conv2d_5_depthwise/depthwise_weights")!.shape == [3, 3, 192, 1])
        #expect(abs(m.preprocessing.scale - 2.0 / 255.0) < 1e-8)
        #expect(m.preprocessing.bias == [-1, -1, -1])
        #expect(m.source.sha256 == "593cd60c316977f4bc8ec0ef51e6b5b7a11279d1ecf13f790f7d33a219e30383")
        #expect(m.license.spdx == "Apache-2.0")
        #expect(m.license.attribution.contains("Google"))
        #expect(try bundle.tensor(named: "MobilenetV1/Conv2d_0/weights").shape == [3, 3, 3, 24])
    }

    @Test func graphDefMobileNet050ImportsWithExpectedStructure() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = try Self.importAndLoad(SharedData.graphDefModel, in: dir)
        let m = bundle.manifest
        #expect(m.widthMultiplier == 0.5)
        #expect(m.blockStrides == [2, 1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 1, 1])
        #expect(m.tensors.count == 62)
        #expect(m.parameterCount == 577_459)             // PROVENANCE
        #expect(m.dtypes == [.fp32])
        #expect(Self.blockChannels(bundle) == [16, 32, 64, 64, 128, 128, 256, 256, 256, 256, 256, 256, 256, 256])
        #expect(bundle.entry(named: "MobilenetV1/displacement_bwd_2/biases")!.shape == [32])
        #expect(m.source.sha256 == "968306c220ad72c680955438a6e12e693e82a6ccd4919b6ba67ee8bbe21760d3")
        #expect(m.preprocessing == .minusOneToOne)
    }

    @Test func bothImportersProduceTheSameManifestStructure() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = try Self.importAndLoad(SharedData.coreMLModel, in: dir).manifest
        let b = try Self.importAndLoad(SharedData.graphDefModel, in: dir).manifest
        #expect(a.tensors.map(\.name) == b.tensors.map(\.name))
        #expect(a.tensors.map(\.name) == PoseNetWeightNames.canonicalOrder())
        #expect(a.tensors.map(\.layout) == b.tensors.map(\.layout))
        #expect(a.tensors.map(\.shape.count) == b.tensors.map(\.shape.count))
        #expect(a.family == b.family && a.blockStrides == b.blockStrides)
    }

    @Test func corruptedCopyOfAnImportedBundleFailsItsChecksum() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = try Self.importAndLoad(SharedData.coreMLModel, in: dir)
        var bytes = [UInt8](try Data(contentsOf: bundle.url))
        // One byte inside the last tensor's data (the heads), which only the checksum covers.
        bytes[bytes.count - 100] ^= 0x01
        let copy = dir.appendingPathComponent("corrupt.pkw")
        try Data(bytes).write(to: copy)
        do {
            _ = try WeightBundle(contentsOf: copy)
            Issue.record("corrupted bundle loaded")
        } catch let error as WeightBundleError {
            guard case .checksumMismatch(let file, _, _) = error else { Issue.record("wrong error: \(error)"); return }
            #expect(file == copy.path)
            #expect(error.description.contains("checksum mismatch"))
        }
    }

    /// Independent check without numpy: the freshly imported weights (not the `make weights`
    /// bundles) run on a reference case's input must give the float64 reference heads of
    /// `shared/reference/` (computed offline from the original models), within the tolerances
    /// of ``NetworkParityTests``. A wrong, missing or misplaced tensor moves the heads far beyond them.
    @Test(arguments: [(SharedData.coreMLModel, "mobilenet075"), (SharedData.graphDefModel, "mobilenet050")])
    func importedWeightsReproduceTheReferenceHeads(source: URL, modelName: String) throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cases = NetworkParityTests.cases.filter { $0.hasPrefix(modelName + "__") }
        try #require(!cases.isEmpty, "no reference case for \(modelName) in shared/reference/index.json")
        // The smallest input of this model's cases keeps the check fast.
        func inputSize(_ name: String) throws -> Int {
            let url = SharedData.root.appendingPathComponent("reference/\(name)/meta.json")
            let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
            return meta["input_size"] as! Int
        }
        let name = try cases.min { try inputSize($0) < inputSize($1) }!
        let folder = SharedData.root.appendingPathComponent("reference/\(name)")
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("meta.json"))) as! [String: Any]
        let bundle = try Self.importAndLoad(source, in: dir)
        let model = try PoseNetModel(bundle: bundle, inputSize: meta["input_size"] as! Int,
                                     outputStride: meta["output_stride"] as! Int, threads: 2)
        try ReferenceInput.load(folder.appendingPathComponent("input.ppm"), into: model.input)
        try model.run()
        let parity = NetworkParityTests()
        try parity.expectClose(model.heatmapScores, folder, "heatmap.f32", absolute: 1e-4, "imported \(name)")
        for (tensor, file) in [(model.offsets, "offsets.f32"), (model.displacementsFwd, "displacement_fwd.f32"),
                               (model.displacementsBwd, "displacement_bwd.f32")] {
            try parity.expectClose(tensor, folder, file, relativeToMax: 5e-4, "imported \(name)")
        }
    }

    /// A second, value-level check: the numpy reference readers (../shared/tools/posenet_reference,
    /// which fold Core ML batchnorm the same way) must see the same values we stored. Shown as
    /// skipped, with this reason, when python3 has no numpy; the numpy-free check above always runs.
    @Test(.enabled(if: SharedData.pythonWithNumpy,
                   "skipped: needs python3 with numpy (importedWeightsReproduceTheReferenceHeads checks the import without it)"),
          arguments: [SharedData.coreMLModel, SharedData.graphDefModel])
    func valuesMatchTheNumpyReferenceReaders(source: URL) throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = """
            import sys, json, numpy as np
            sys.path.insert(0, sys.argv[1])
            import reference_forward as rf
            out = {}
            for k, v in rf.load_any(sys.argv[2]).items():
                a = np.asarray(v, np.float64).ravel(); n = a.size
                idx = sorted(set([0, n // 3, n // 2, (2 * n) // 3, n - 1]))
                out[k] = dict(shape=[int(d) for d in v.shape], sum=float(a.sum()), abssum=float(np.abs(a).sum()),
                              idx=idx, samples=[float(a[i]) for i in idx])
            print(json.dumps(out))
            """
        let (status, output) = try SharedData.runPython(["-c", script, SharedData.referenceTools.path, source.path])
        try #require(status == 0, "reference reader failed")
        struct Summary: Decodable { let shape: [Int]; let sum: Double; let abssum: Double; let idx: [Int]; let samples: [Double] }
        let reference = try JSONDecoder().decode([String: Summary].self, from: Data(output.utf8))
        let bundle = try Self.importAndLoad(source, in: dir)
        #expect(Set(reference.keys) == Set(bundle.tensorNames))
        for name in bundle.tensorNames {
            guard let r = reference[name] else { continue }
            let t = try bundle.tensor(named: name)
            #expect(t.shape == r.shape, "\(name)")
            let values = t.scalars
            let sum = values.reduce(0.0) { $0 + Double($1) }
            let absSum = values.reduce(0.0) { $0 + abs(Double($1)) }
            #expect(abs(sum - r.sum) <= 1e-6 * max(1, r.abssum), "\(name): sum \(sum) vs \(r.sum)")
            #expect(abs(absSum - r.abssum) <= 1e-6 * max(1, r.abssum), "\(name): |sum| \(absSum) vs \(r.abssum)")
            for (i, expected) in zip(r.idx, r.samples) {
                #expect(abs(Double(values[i]) - expected) <= 1e-6, "\(name)[\(i)]: \(values[i]) vs \(expected)")
            }
        }
    }
}

/// Importer behavior on crafted models: exact folding, and one-line refusals of bad input.
@Suite struct ImportCraftedModelTests {
    static func importBytes(_ bytes: [UInt8], name: String = "crafted.mlmodel") throws -> ImportedWeights {
        try WeightImporter.importModel(bytes: bytes, file: "/tmp/\(name)")
    }

    /// Asserts that importing throws an ImportError whose one-line message names the file and contains `fragments`.
    static func expectRefusal(_ bytes: [UInt8], name: String, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try importBytes(bytes, name: name)
            Issue.record("import succeeded, expected a refusal mentioning \(fragments)", sourceLocation: sourceLocation)
        } catch let error as ImportError {
            let message = error.description
            #expect(message.hasPrefix("/tmp/\(name): "), "\(message)", sourceLocation: sourceLocation)
            #expect(!message.contains("\n"), sourceLocation: sourceLocation)
            for fragment in fragments { #expect(message.contains(fragment), "\(message)", sourceLocation: sourceLocation) }
        } catch {
            Issue.record("unexpected error type: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [false, true]) func craftedCoreMLModelFoldsBatchnormExactly(fp16: Bool) throws {
        let fixture = CoreMLFixture(seed: 3, fp16: fp16)
        let imported = try Self.importBytes(fixture.encoded())
        #expect(imported.tensors.map(\.name) == PoseNetWeightNames.canonicalOrder())
        #expect(imported.manifest.widthMultiplier == 4.0 / 32)
        #expect(imported.manifest.outputStride == 16)
        let byName = Dictionary(uniqueKeysWithValues: imported.tensors.map { ($0.name, $0) })
        for i in 0..<fixture.convs.count {
            let (wName, bName) = CoreMLFixture.canonicalNames(i)
            let expected = fixture.expected(i)
            let w = try #require(byName[wName]), b = try #require(byName[bName])
            #expect(w.shape == expected.shape, "\(wName)")
            #expect(w.values.count == expected.weights.count)
            let wErr = zip(w.values, expected.weights).map { absoluteError($0, $1) }.max() ?? 0
            let bErr = zip(b.values, expected.biases).map { absoluteError($0, $1) }.max() ?? 0
            #expect(wErr <= 1e-6 && bErr <= 1e-6, "\(wName): \(wErr), \(bName): \(bErr)")
            #expect(w.sourceDType == (fp16 ? .fp16 : .fp32))
        }
        // Folding with γ≠1 makes values non-representable in fp16: auto storage keeps them lossless.
        let writer = try imported.bundleWriter()
        #expect(writer.manifest.dtypes == [.fp32])
    }

    /// One weight rule for both Core ML families (`CoreMLFormat`): a NaN stored as float16 is
    /// refused by the reader naming its layer, as a Create ML classifier's is (0.10's PoseNet
    /// importer noticed it only after folding, naming a tensor).
    @Test func nonFiniteFloat16WeightIsRefusedNamingTheLayer() throws {
        var fixture = CoreMLFixture(seed: 1, fp16: true)
        fixture.convs[3].weights[5] = .nan
        Self.expectRefusal(fixture.encoded(), name: "nan.mlmodel",
                           ["layer '\(fixture.convs[3].name)': convolution weights hold a value that is not finite (nan at index 5)"])
    }

    @Test func bgrInputIsReorderedToRGB() throws {
        var fixture = CoreMLFixture(seed: 5)
        let rgb = try Self.importBytes(fixture.encoded())
        fixture.colorSpace = 30
        let bgr = try Self.importBytes(fixture.encoded())
        let a = rgb.tensors[0].values, b = bgr.tensors[0].values   // HWIO [3,3,3,4]
        let cout = 4
        for tap in 0..<9 { for o in 0..<cout {
            #expect(a[(tap * 3 + 0) * cout + o] == b[(tap * 3 + 2) * cout + o])
            #expect(a[(tap * 3 + 1) * cout + o] == b[(tap * 3 + 1) * cout + o])
        } }
    }

    @Test func unsupportedCoreMLLayerIsRefusedByName() throws {
        var fixture = CoreMLFixture(seed: 1)
        // A pooling layer (type 120) spliced in after block 0's ReLU6.
        let pooling = fixture.layer("MobilenetV1/MaxPool:0", "relu6_0_out", "pool_out", type: 120) { $0.uint(1, 0) }
        fixture.injected = (at: 6, layer: pooling)
        Self.expectRefusal(fixture.encoded(), name: "pool.mlmodel", ["MobilenetV1/MaxPool:0", "pooling"])
    }

    @Test func brokenReLU6PatternIsRefused() throws {
        var fixture = CoreMLFixture(seed: 1)
        // Replace nothing, but insert a second ReLU reading the same tensor as the first negation.
        let extra = fixture.layer("stray_relu", "bn0_out", "stray_out", type: 130) { $0.message(10) { _ in } }
        fixture.injected = (at: 3, layer: extra)
        Self.expectRefusal(fixture.encoded(), name: "relu.mlmodel", ["stray_relu"])
    }

    @Test func nonPoseNetCoreMLModelsAreRefused() throws {
        var pipeline = ProtobufWriter()
        pipeline.uint(1, 4)
        pipeline.message(200) { $0.uint(1, 1) }  // a Pipeline model
        Self.expectRefusal(pipeline.bytes, name: "pipeline.mlmodel", ["not a Core ML NeuralNetwork model"])

        var fixture = CoreMLFixture(seed: 1)
        fixture.headOrder = [3, 2, 1]           // no heatmap head
        Self.expectRefusal(fixture.encoded(), name: "heads.mlmodel", ["heatmap_2"])
    }

    @Test func truncatedAndUnknownFilesAreRefused() throws {
        let bytes = CoreMLFixture(seed: 2).encoded()
        Self.expectRefusal(Array(bytes.prefix(bytes.count / 2)), name: "half.mlmodel", ["truncated protobuf"])
        Self.expectRefusal(Array("hello, world".utf8), name: "text.mlmodel", ["unrecognized model format"])
        Self.expectRefusal([], name: "empty.pb", ["empty"])
        Self.expectRefusal(Array("PKWEIGHT".utf8) + [UInt8](repeating: 0, count: 56), name: "x.pkw", ["already a PoseKit weight bundle"])
    }

    @Test(arguments: [false, true]) func craftedGraphDefImportsExactly(useFloatVal: Bool) throws {
        let fixture = GraphDefFixture()
        let imported = try Self.importBytes(fixture.encoded(useFloatVal: useFloatVal), name: "g.pb")
        #expect(imported.manifest.source.format == "tensorflow-graphdef")
        #expect(imported.tensors.map(\.name) == fixture.tensors.map(\.name))
        for (got, want) in zip(imported.tensors, fixture.tensors) {
            #expect(got.shape == want.shape)
            #expect(got.values == want.values)
        }
    }

    @Test func graphDefDetectionIgnoresTheFileName() throws {
        let bytes = GraphDefFixture().encoded()
        #expect(try WeightImporter.detectFormat(bytes, file: "x.mlmodel") == .tensorFlowGraphDef)
        #expect(try WeightImporter.detectFormat(CoreMLFixture(seed: 1).encoded(), file: "x.pb") == .coreML)
    }

    @Test func graphDefMissingATensorIsRefusedByName() throws {
        var fixture = GraphDefFixture()
        fixture.tensors.removeAll { $0.name == "MobilenetV1/Conv2d_7_pointwise/biases" }
        Self.expectRefusal(fixture.encoded(), name: "missing.pb", ["missing tensor 'MobilenetV1/Conv2d_7_pointwise/biases'"])
    }

    /// One `float_val` fills a constant's whole shape; a shape of 200 million values claimed by a
    /// file of a few kilobytes is refused before the 800 MB it asks for are allocated.
    @Test func graphDefOneValueCannotFillMoreThanTheFileHolds() throws {
        var fixture = GraphDefFixture()
        let i = fixture.tensors.firstIndex { $0.name == PoseNetWeightNames.pointwiseBiases(3) }!
        fixture.tensors[i].shape = [200_000_000]
        fixture.tensors[i].values = [0.5]
        let bytes = fixture.encoded(useFloatVal: true)
        #expect(bytes.count < 100_000)
        Self.expectRefusal(bytes, name: "fill.pb", [PoseNetWeightNames.pointwiseBiases(3), "from one value", "-byte file"])
    }

    @Test func graphDefMismatchedShapesAreRefused() throws {
        var fixture = GraphDefFixture()
        // Depthwise weights of block 4 for 9 channels where block 3 outputs 8.
        let i = fixture.tensors.firstIndex { $0.name == PoseNetWeightNames.depthwiseWeights(4) }!
        fixture.tensors[i].shape = [3, 3, 9, 1]
        fixture.tensors[i].values = [Float](repeating: 0.5, count: 81)
        Self.expectRefusal(fixture.encoded(), name: "shape.pb", [PoseNetWeightNames.depthwiseWeights(4), "[3, 3, 9, 1]", "expected [3, 3, 8, 1]"])

        // tensor_content whose size disagrees with the declared shape.
        var short = GraphDefFixture()
        short.tensors[1].values.removeLast()
        Self.expectRefusal(short.encoded(), name: "bytes.pb", [PoseNetWeightNames.firstConvBiases, "tensor_content"])
    }
}

/// Hostile sizes in otherwise well-formed files must be refused, not trap or allocate wildly.
@Suite struct ImportHostileSizeTests {
    @Test func hugeConvolutionChannelCountIsRefused() throws {
        var fixture = CoreMLFixture(seed: 1)
        let conv = fixture.layer("huge", "relu6_0_out", "huge_out", type: 100) { p in
            p.uint(1, UInt64.max); p.uint(2, 1); p.uint(10, UInt64.max)
            p.packedUInts(20, [3, 3]); p.message(51) { _ in }
        }
        fixture.injected = (at: 6, layer: conv)
        // Range-checked by Core ML's reader before PoseNet's matcher sees it (every integer, one rule).
        ImportCraftedModelTests.expectRefusal(fixture.encoded(), name: "huge.mlmodel", ["'huge'", "convolution outputChannels 18446744073709551615 is outside 1...65536"])
    }

    @Test func overflowingGraphDefShapeIsRefused() throws {
        var fixture = GraphDefFixture()
        fixture.tensors[0].shape = [1 << 27, 1 << 27, 1 << 27, 1 << 27]
        ImportCraftedModelTests.expectRefusal(fixture.encoded(), name: "overflow.pb", [PoseNetWeightNames.firstConvWeights, "too large"])
    }

    @Test func overflowingManifestShapeIsRefused() throws {
        let dir = try SharedData.scratchDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let (writer, _) = try WeightBundleTests.sampleWriter()
        var manifest = writer.manifest
        manifest.tensors[0].shape = [1 << 31, 1 << 31, 1 << 31, 4]
        let url = try WeightBundleTests.write(try WeightBundleTests.signed(manifest: manifest, data: [UInt8](repeating: 0, count: 1024)), in: dir)
        #expect(throws: WeightBundleError.self) { try WeightBundle(contentsOf: url) }
    }
}

/// Random corruption of small crafted models: every outcome must be a successful import or a
/// thrown ImportError (a crash fails the whole run).
@Suite struct ImportCorruptionTests {
    @Test(arguments: ["coreml", "graphdef"]) func randomByteCorruptionNeverCrashes(kind: String) throws {
        let good = kind == "coreml" ? CoreMLFixture(seed: 4).encoded() : GraphDefFixture().encoded()
        var random = SeededGenerator(seed: 77)
        var refused = 0
        for round in 0..<200 {
            var bytes = good
            for _ in 0...(round % 4) {
                let at = Int(random.next() % UInt64(bytes.count))
                bytes[at] = UInt8(truncatingIfNeeded: random.next())
            }
            if round % 5 == 0 { bytes.removeLast(Int(random.next() % UInt64(bytes.count))) }
            do {
                _ = try WeightImporter.importModel(bytes: bytes, file: "fuzz")
            } catch let error as ImportError {
                refused += 1
                #expect(!error.description.contains("\n"))
            }
        }
        #expect(refused > 50)
    }

    /// A crafted model cut at every offset, through the format readers (`CoreMLFormat`,
    /// `TensorFlowGraphDef`) and PoseNet's matcher: one line naming the file, never a trap. (A
    /// GraphDef cut between nodes after the last weight is still a whole graph of the same weights.)
    @Test(arguments: ["coreml", "graphdef"]) func truncatedAtEveryOffsetIsOneLine(kind: String) throws {
        let whole = kind == "coreml" ? CoreMLFixture(seed: 4).encoded() : GraphDefFixture().encoded()
        let complete = try WeightImporter.importModel(bytes: whole, file: "whole.model").tensors
        for end in 0..<whole.count {
            do {
                let tensors = try WeightImporter.importModel(bytes: Array(whole.prefix(end)), file: "cut.model").tensors
                #expect(kind == "graphdef" && tensors.map(\.values) == complete.map(\.values),
                        "\(kind) cut at \(end) of \(whole.count) bytes imported")
            } catch let error as ImportError {
                let line = error.description
                #expect(line.hasPrefix("cut.model: ") && !line.contains("\n"), "\(kind) cut at \(end): \(line)")
            } catch {
                Issue.record("\(kind) cut at \(end): \(type(of: error)): \(error)")
            }
        }
    }
}

/// Moving the reading of Core ML and GraphDef files into format readers of their own
/// (`CoreMLFormat`, `TensorFlowGraphDef`) changed where a file is read, not what is stored: the
/// bundles imported from the two shared PoseNet files are byte for byte those made before (sha256
/// of `posekit import`'s output from main 055dec4, which the `make weights` bundles also had).
@Suite struct ImportByteIdentityTests {
    @Test(arguments: [
        (SharedData.coreMLModel, "98fb21667bf6d208d7d5c371da2d60ae18a6a52e1ac5379b1795f0b2e09cbe00"),
        (SharedData.graphDefModel, "eeeaa897901e264f8a1a2cb985d539d138fced806f10b8f187911e29e25d8bc2"),
    ])
    func importedBundleBytesAreUnchanged(source: URL, sha256: String) throws {
        let bytes = try WeightImporter.importModel(at: source).bundleWriter().encoded()
        #expect(SHA256.hexDigest(bytes) == sha256, "\(source.lastPathComponent)")
    }
}
