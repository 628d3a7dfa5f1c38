import Foundation

/// Builds a `.pkw` weight bundle: add tensors in order, then ``write(to:)``.
///
/// ```swift
/// var writer = WeightBundleWriter(manifest: description)   // family, width, source, license…
/// try writer.add(name: "MobilenetV1/Conv2d_0/weights", shape: [3, 3, 3, 24],
///                layout: .hwio, values: weights, storage: .fp16)
/// try writer.write(to: URL(fileURLWithPath: "Weights/mobilenet075.pkw"))
/// ```
///
/// Tensors are laid out in the order added, each at a 64-byte-aligned offset, with zero
/// padding in between. Writing goes to a temporary file that is renamed into place, so an
/// interrupted import never leaves a half-written bundle under the final name.
public struct WeightBundleWriter: Sendable {
    /// The manifest so far; ``add(name:shape:layout:values:storage:)`` appends to its tensors.
    public private(set) var manifest: WeightManifest
    private var data: [UInt8] = []

    /// Starts a bundle described by `manifest`; any tensors it lists are discarded.
    public init(manifest: WeightManifest) {
        var m = manifest
        m.tensors = []
        self.manifest = m
    }

    /// Appends a tensor. `values` are row-major in `shape`; `storage` chooses fp16 (values are
    /// rounded to nearest even) or fp32 on disk.
    ///
    /// - Throws: ``WeightBundleError/invalidTensor(name:detail:)`` when the count does not match
    ///   the shape, the shape has a non-positive axis, or the name is already present.
    public mutating func add(name: String, shape: [Int], layout: TensorLayout, values: [Float], storage: WeightDType) throws {
        guard let count = WeightManifest.TensorEntry.checkedElementCount(shape) else {
            throw WeightBundleError.invalidTensor(name: name, detail: "invalid shape \(shape)")
        }
        guard values.count == count else {
            throw WeightBundleError.invalidTensor(name: name, detail: "\(values.count) values for shape \(shape) (\(count) elements)")
        }
        guard !manifest.tensors.contains(where: { $0.name == name }) else {
            throw WeightBundleError.invalidTensor(name: name, detail: "added twice")
        }
        let offset = WeightBundleHeader.aligned(data.count)
        data.append(contentsOf: [UInt8](repeating: 0, count: offset - data.count))
        // Bulk copies: the host is little-endian (checked at compile time in WeightBundleFormat.swift).
        switch storage {
        case .fp16: HalfPrecision.narrow(values).withUnsafeBytes { data.append(contentsOf: $0) }
        case .fp32: values.withUnsafeBytes { data.append(contentsOf: $0) }
        }
        manifest.tensors.append(.init(name: name, dtype: storage, shape: shape, layout: layout,
                                      offset: offset, byteCount: count * storage.byteWidth))
    }

    /// The complete file: header, manifest, padding, tensor data.
    public func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let json = [UInt8](try encoder.encode(manifest))
        guard json.count <= WeightBundleHeader.maximumManifestLength else {
            throw WeightBundleError.invalidTensor(name: manifest.name, detail: "the manifest would take \(json.count) bytes, more than the \(WeightBundleHeader.maximumManifestLength) a bundle may hold")
        }
        let dataOffset = WeightBundleHeader.aligned(WeightBundleHeader.size + json.count)
        var file = [UInt8](repeating: 0, count: WeightBundleHeader.size)
        file.append(contentsOf: json)
        file.append(contentsOf: [UInt8](repeating: 0, count: dataOffset - file.count))
        file.append(contentsOf: data)
        let checksum = file.withUnsafeBytes { WeightChecksum.fnv1a64Words(UnsafeRawBufferPointer(rebasing: $0[WeightBundleHeader.size...])) }
        let header = WeightBundleHeader(manifestLength: UInt64(json.count), dataOffset: UInt64(dataOffset),
                                        fileLength: UInt64(file.count), checksum: checksum)
        file.replaceSubrange(0..<WeightBundleHeader.size, with: header.encoded())
        return file
    }

    /// Writes the bundle to `url` atomically (temporary file, then rename), creating the
    /// parent directory if needed.
    public func write(to url: URL) throws {
        let bytes = try encoded()
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw WeightBundleError.io(file: url.path, detail: "cannot write: \(WeightBundle.oneLine(error))")
        }
    }
}
