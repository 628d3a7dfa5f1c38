import Foundation
import PoseCore
import Tensor

/// Reads and writes the action classifier's weights (`Weights/actionnet.pkw`, documented in
/// `Weights/actionnet.md`).
///
/// They are a PoseKit weight bundle like PoseNet's (``/Tensor/WeightBundle``: header, checksum, JSON
/// manifest, 64-byte aligned tensors) of kind ``kind``. The manifest's network section is an
/// ``ActionNetSection`` (architecture, frame rate, window stride, class names); the training
/// settings are the source notes; the tensors are fp32, one weight and one bias tensor per layer,
/// in the order of ``TemporalConvNet``'s flat parameter vector:
///
/// ```
/// conv0/weights   HWIO [1, 9, 51, C1]     conv0/biases   C [C1]
/// block1a/..., block1b/..., conv2/..., block2a/..., block2b/...   (HWIO [1, 9, Cin, Cout])
/// dense/weights   IO   [C2, 5]            dense/biases   C [5]
/// ```
///
/// Files of the earlier format (magic `PKACTN01`: a JSON header and the raw parameters, no
/// checksum) still load; `posekit import OLD.pkw -o NEW.pkw` converts one.
public enum ActionWeightsFile {
    /// The manifest `kind` of ActionNet bundles.
    public static let kind = "actionnet"
    /// Magic of the earlier format.
    static let legacyMagic = Array("PKACTN01".utf8)

    /// What a weight file records besides the parameters.
    public struct Header: Codable, Equatable, Sendable {
        public var architecture: TemporalConvNet.Architecture
        public var fps: Double
        public var windowStride: Int
        public var classes: [String]
        public var parameters: Int
        /// Free-form provenance (seed, epochs, data) copied from training.
        public var training: [String: String]

        enum CodingKeys: String, CodingKey {
            case architecture, fps, classes, parameters, training
            case windowStride = "window_stride"
        }
    }

    /// ActionNet's section of the bundle manifest.
    public struct ActionNetSection: Codable, Equatable, Sendable {
        public var architecture: TemporalConvNet.Architecture
        /// Frames per second the windows are resampled to.
        public var fps: Double
        /// Model frames between consecutive windows.
        public var windowStride: Int
        /// Class names, in logit order.
        public var classes: [String]
    }

    /// Whether `prefix` (the first 8 bytes or more of a file) starts a `PKACTN01` file.
    public static func isLegacy(_ prefix: Data) -> Bool { prefix.starts(with: legacyMagic) }

    /// The tensor names and shapes of a network, in parameter order: `(name, shape, layout, offset)`.
    static func tensorLayout(_ net: TemporalConvNet) -> [(name: String, shape: [Int], layout: TensorLayout, offset: Int)] {
        var out: [(String, [Int], TensorLayout, Int)] = []
        for (name, layer) in [("conv0", net.conv0), ("block1a", net.block1a), ("block1b", net.block1b),
                              ("conv2", net.conv2), ("block2a", net.block2a), ("block2b", net.block2b)] {
            out.append(("\(name)/weights", [1, layer.kernel, layer.inputChannels, layer.outputChannels], .hwio, layer.offset))
            out.append(("\(name)/biases", [layer.outputChannels], .c, layer.offset + layer.weightCount))
        }
        let a = net.architecture
        out.append(("dense/weights", [a.channels2, a.classes], .io, net.denseOffset))
        out.append(("dense/biases", [a.classes], .c, net.denseOffset + a.channels2 * a.classes))
        return out
    }

    /// The bundle bytes of a network and its windowing settings; `training` becomes the source notes.
    public static func encode(_ net: TemporalConvNet, fps: Double, windowStride: Int, training: [String: String]) throws -> Data {
        let section = ActionNetSection(architecture: net.architecture, fps: fps, windowStride: windowStride,
                                       classes: ActionClass.allCases.map(\.name))
        let manifest = try WeightManifest(
            kind: kind, name: "actionnet", section: section,
            source: .init(fileName: "actionnet.pkw", sha256: "", format: "posekit-train-actions", notes: training),
            license: .init(spdx: "Apache-2.0", attribution: "PoseKit action classifier, trained by `posekit train-actions` on synthetic motion and the labeled clips named in the source notes."))
        var writer = WeightBundleWriter(manifest: manifest)
        let values = net.parameterValues
        for t in tensorLayout(net) {
            let count = t.shape.reduce(1, *)
            try writer.add(name: t.name, shape: t.shape, layout: t.layout, values: Array(values[t.offset..<(t.offset + count)]), storage: .fp32)
        }
        return Data(try writer.encoded())
    }

    /// Loads a weight file from disk: a bundle of kind `actionnet`, or a `PKACTN01` file.
    ///
    /// - Throws: ``/Tensor/WeightBundleError`` for a damaged or foreign bundle (a PoseNet bundle:
    ///   ``/Tensor/WeightBundleError/wrongKind(file:kind:expected:)``), ``ActionNetError/badWeights(_:)`` otherwise.
    public static func load(contentsOf url: URL) throws -> (TemporalConvNet, Header) {
        // The bundle reader maps the file; only the earlier format is read whole. Both refuse
        // a FIFO or device before reading from it (`RegularFile`).
        let bundle: WeightBundle
        do { bundle = try WeightBundle(contentsOf: url) } catch let error as WeightBundleError {
            switch error {
            case .notABundle, .truncated: break   // perhaps the earlier format
            default: throw error
            }
            let data: Data
            do { data = try RegularFile.contents(atPath: url.path) } catch { throw ActionNetError.badWeights(String(describing: error)) }
            guard isLegacy(data) else { throw error }
            do { return try decodeLegacy(data) } catch ActionNetError.badWeights(let reason) {
                throw ActionNetError.badWeights("\(url.path): \(reason)")
            }
        }
        return try load(bundle: bundle)
    }

    /// A network from an opened bundle of kind `actionnet`.
    public static func load(bundle: WeightBundle) throws -> (TemporalConvNet, Header) {
        try bundle.requireKind(kind)
        let file = bundle.url.path
        let section: ActionNetSection
        do { section = try bundle.manifest.section(ActionNetSection.self) } catch {
            throw WeightBundleError.corrupt(file: file, detail: "the actionnet section is not valid")
        }
        guard section.classes == ActionClass.allCases.map(\.name) else {
            throw ActionNetError.badWeights("\(file): classes \(section.classes) differ from \(ActionClass.allCases.map(\.name))")
        }
        guard section.fps.isFinite, section.fps >= 1, section.windowStride >= 1 else { throw ActionNetError.badWeights("\(file): bad fps or stride") }
        // The claimed architecture against the bytes really there, before allocating for it:
        // every scalar takes at least 2 bytes (fp16).
        let needed: Int
        do { needed = try TemporalConvNet.parameterCount(of: section.architecture) } catch ActionNetError.invalidConfiguration(let problem) {
            throw ActionNetError.badWeights("\(file): \(problem)")   // the file's fault: name it
        }
        guard needed <= bundle.fileSize / 2 else {
            throw WeightBundleError.corrupt(file: file, detail: "the architecture needs \(needed) parameters, more than the \(bundle.fileSize)-byte file can hold")
        }
        let net = try TemporalConvNet(architecture: section.architecture)
        var values = [Float](repeating: 0, count: net.parameterCount)
        for t in tensorLayout(net) {
            guard let entry = bundle.entry(named: t.name) else { throw WeightBundleError.missingTensor(file: file, name: t.name) }
            guard entry.shape == t.shape else {
                throw WeightBundleError.corrupt(file: file, detail: "tensor '\(t.name)' has shape \(entry.shape), the architecture needs \(t.shape)")
            }
            let scalars = try bundle.tensor(named: t.name).scalars
            guard scalars.allSatisfy(\.isFinite) else { throw ActionNetError.badWeights("\(file): tensor '\(t.name)' is not finite") }
            values.replaceSubrange(t.offset..<(t.offset + scalars.count), with: scalars)
        }
        net.parameterValues = values
        let header = Header(architecture: section.architecture, fps: section.fps, windowStride: section.windowStride,
                            classes: section.classes, parameters: net.parameterCount, training: bundle.manifest.source.notes)
        return (net, header)
    }

    // MARK: The earlier format

    /// Writes the earlier `PKACTN01` format (kept to make test fixtures of old files):
    ///
    /// ```
    /// bytes 0..<8   magic "PKACTN01"
    /// bytes 8..<12  UInt32 LE: header length H
    /// 12..<12+H     UTF-8 JSON ``Header``
    /// then          zero padding to a multiple of 4 bytes, then N little-endian Float32 parameters
    /// ```
    public static func encodeLegacy(_ net: TemporalConvNet, fps: Double, windowStride: Int, training: [String: String]) throws -> Data {
        let header = Header(architecture: net.architecture, fps: fps, windowStride: windowStride,
                            classes: ActionClass.allCases.map(\.name), parameters: net.parameterCount, training: training)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(header)
        var data = Data(legacyMagic)
        var h = UInt32(json.count).littleEndian
        withUnsafeBytes(of: &h) { data.append(contentsOf: $0) }
        data.append(json)
        while data.count % 4 != 0 { data.append(0) }
        for v in net.parameterValues {
            var bits = v.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Parses a `PKACTN01` file into a ready network and its header.
    public static func decodeLegacy(_ data: Data) throws -> (TemporalConvNet, Header) {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, Array(bytes[0..<8]) == legacyMagic else { throw ActionNetError.badWeights("not an ActionNet weight file (bad magic)") }
        let h = Int(UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24)
        guard h <= bytes.count - 12 else { throw ActionNetError.badWeights("header length \(h) exceeds file size") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[12..<(12 + h)]))
        } catch {
            throw ActionNetError.badWeights("unreadable JSON header")
        }
        guard header.classes == ActionClass.allCases.map(\.name) else {
            throw ActionNetError.badWeights("classes \(header.classes) differ from \(ActionClass.allCases.map(\.name))")
        }
        guard header.fps.isFinite, header.fps >= 1, header.windowStride >= 1 else { throw ActionNetError.badWeights("bad fps or stride") }
        // Sizes first, allocation after: a header may claim any architecture.
        let needed = try TemporalConvNet.parameterCount(of: header.architecture)
        guard header.parameters == needed else {
            throw ActionNetError.badWeights("header says \(header.parameters) parameters, architecture needs \(needed)")
        }
        var start = 12 + h
        while start % 4 != 0 { start += 1 }
        guard bytes.count == start + 4 * needed else {
            throw ActionNetError.badWeights("expected \(start + 4 * needed) bytes, file has \(bytes.count)")
        }
        let net = try TemporalConvNet(architecture: header.architecture)
        var values = [Float](repeating: 0, count: net.parameterCount)
        for i in 0..<net.parameterCount {
            let o = start + 4 * i
            let bits = UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
            values[i] = Float(bitPattern: bits)
            guard values[i].isFinite else { throw ActionNetError.badWeights("parameter \(i) is not finite") }
        }
        net.parameterValues = values
        return (net, header)
    }
}
