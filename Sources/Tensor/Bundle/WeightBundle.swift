import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PoseKit weight bundle (`.pkw`) opened for reading.
///
/// The file is memory-mapped read-only, so opening is cheap and the weights are paged in by the
/// kernel; fp16 tensors stay fp16 on disk and in the mapping and are widened to fp32 only when
/// you ask for them. Opening verifies the header, the checksum of everything after the header,
/// and that every manifest entry lies inside the file, so a corrupt, truncated or foreign file
/// fails here with a one-line ``WeightBundleError`` rather than later in the network.
///
/// ```swift
/// let bundle = try WeightBundle(contentsOf: ModelLocator.resolve("mobilenet075"))
/// try bundle.requireKind("posenet")                               // a PoseNet bundle
/// let w = try bundle.tensor(named: "MobilenetV1/Conv2d_0/weights") // fp32, HWIO [3,3,3,24]
/// ```
///
/// The container is the same for every network (PoseNet, ActionNet): the manifest's ``WeightManifest/kind``
/// says which network the weights are for, and its network section holds that network's settings.
///
/// A bundle is immutable and safe to share between threads.
public final class WeightBundle: @unchecked Sendable {
    /// The file this bundle was read from.
    public let url: URL
    /// The decoded manifest (tensor list in canonical order).
    public let manifest: WeightManifest
    /// Size of the file in bytes.
    public let fileSize: Int

    private let mapping: UnsafeRawPointer
    private let dataOffset: Int
    private let entryIndex: [String: Int]

    /// Tensor names in manifest (canonical) order.
    public var tensorNames: [String] { manifest.tensors.map(\.name) }

    /// Maps and validates the bundle at `url`.
    ///
    /// - Throws: ``WeightBundleError`` when the file is missing, not a bundle, of another format
    ///   version, truncated, fails its checksum, or has an inconsistent manifest.
    public init(contentsOf url: URL) throws {
        let file = url.path
        self.url = url
        let fd = open(file, O_RDONLY | O_NONBLOCK | O_CLOEXEC)   // never waits on a FIFO; its type is checked below
        guard fd >= 0 else { throw WeightBundleError.io(file: file, detail: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw WeightBundleError.io(file: file, detail: "cannot stat: \(String(cString: strerror(errno)))") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw WeightBundleError.io(file: file, detail: "not a regular file") }
        let size = Int(info.st_size)
        guard size >= WeightBundleHeader.size else {
            throw WeightBundleError.truncated(file: file, detail: "\(size) bytes is shorter than the \(WeightBundleHeader.size)-byte header")
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw WeightBundleError.io(file: file, detail: "cannot map: \(String(cString: strerror(errno)))")
        }
        let base = UnsafeRawPointer(mapped)
        do {
            let whole = UnsafeRawBufferPointer(start: base, count: size)
            let header = try WeightBundleHeader.decode(whole, actualLength: size, file: file)
            let checked = UnsafeRawBufferPointer(rebasing: whole[WeightBundleHeader.size...])
            let computed = WeightChecksum.fnv1a64Words(checked)
            guard computed == header.checksum else {
                throw WeightBundleError.checksumMismatch(file: file, stored: header.checksum, computed: computed)
            }
            let manifestBytes = Data(whole[WeightBundleHeader.size..<(WeightBundleHeader.size + Int(header.manifestLength))])
            let manifest: WeightManifest
            do {
                manifest = try JSONDecoder().decode(WeightManifest.self, from: manifestBytes)
            } catch {
                throw WeightBundleError.corrupt(file: file, detail: "manifest is not valid: \(WeightBundle.oneLine(error))")
            }
            let dataOffset = Int(header.dataOffset)
            self.entryIndex = try WeightBundle.validate(manifest, dataLength: size - dataOffset, file: file)
            self.manifest = manifest
            self.dataOffset = dataOffset
        } catch {
            munmap(mapped, size)
            throw error
        }
        self.mapping = base
        self.fileSize = size
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: mapping), fileSize)
    }

    /// The manifest entry for `name`, or `nil`.
    public func entry(named name: String) -> WeightManifest.TensorEntry? {
        entryIndex[name].map { manifest.tensors[$0] }
    }

    /// The tensor `name` as a new fp32 ``Tensor`` with the manifest's shape (fp16 is widened).
    ///
    /// - Throws: ``WeightBundleError/missingTensor(file:name:)`` for an unknown name.
    public func tensor(named name: String) throws -> Tensor {
        guard let entry = entry(named: name) else { throw WeightBundleError.missingTensor(file: url.path, name: name) }
        let tensor = try Tensor(zeros: entry.shape)
        let source = mapping + dataOffset + entry.offset
        tensor.withUnsafeMutableBufferPointer { out in
            switch entry.dtype {
            case .fp16:
                HalfPrecision.convert(source, count: entry.elementCount, into: out.baseAddress!)
            case .fp32:
                for i in 0..<entry.elementCount {
                    out[i] = Float(bitPattern: UInt32(littleEndian: source.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                }
            }
        }
        return tensor
    }

    /// The stored bytes of tensor `name`, exactly as on disk (fp16 or fp32 little-endian),
    /// for consumers that want the compact form. Valid while this bundle is alive.
    public func storedBytes(named name: String) throws -> UnsafeRawBufferPointer {
        guard let entry = entry(named: name) else { throw WeightBundleError.missingTensor(file: url.path, name: name) }
        return UnsafeRawBufferPointer(start: mapping + dataOffset + entry.offset, count: entry.byteCount)
    }

    /// Checks every entry against the data section; returns name → index.
    static func validate(_ manifest: WeightManifest, dataLength: Int, file: String) throws -> [String: Int] {
        var index: [String: Int] = [:]
        for (i, entry) in manifest.tensors.enumerated() {
            func bad(_ detail: String) -> WeightBundleError {
                WeightBundleError.corrupt(file: file, detail: "tensor '\(entry.name)' \(detail)")
            }
            guard index.updateValue(i, forKey: entry.name) == nil else { throw bad("appears twice") }
            guard let elements = WeightManifest.TensorEntry.checkedElementCount(entry.shape) else { throw bad("has invalid shape \(entry.shape)") }
            guard entry.byteCount == elements * entry.dtype.byteWidth else {
                throw bad("stores \(entry.byteCount) bytes for shape \(entry.shape) in \(entry.dtype.rawValue)")
            }
            guard entry.offset >= 0, entry.offset % WeightBundleHeader.alignment == 0 else {
                throw bad("offset \(entry.offset) is not \(WeightBundleHeader.alignment)-byte aligned")
            }
            guard entry.offset <= dataLength - entry.byteCount else {
                throw bad("bytes \(entry.offset)..<\(entry.offset + entry.byteCount) lie past the \(dataLength)-byte data section")
            }
        }
        return index
    }

    /// Throws ``WeightBundleError/wrongKind(file:kind:expected:)`` unless the bundle holds
    /// weights for the network `kind` (e.g. `"posenet"`, `"actionnet"`).
    public func requireKind(_ kind: String) throws {
        guard manifest.kind == kind else { throw WeightBundleError.wrongKind(file: url.path, kind: manifest.kind, expected: kind) }
    }

    /// The manifest's network section decoded as `Section` (``WeightManifest/section(_:)``).
    ///
    /// - Throws: ``WeightBundleError/corrupt(file:detail:)`` naming the bundle and, in one line,
    ///   what does not read: a missing field, or a value the section's type refuses.
    public func section<Section: Decodable>(_ type: Section.Type) throws -> Section {
        do {
            return try manifest.section(type)
        } catch {
            throw WeightBundleError.corrupt(file: url.path, detail: "manifest network section: \(Self.oneLine(error))")
        }
    }

    /// One line for an error: a JSON decoding error says what is missing where; others their first line.
    static func oneLine(_ error: Error) -> String {
        if let decoding = error as? DecodingError {
            switch decoding {
            case let .keyNotFound(key, context):
                return "\"\(key.stringValue)\" is missing" + where_(context)
            case let .typeMismatch(type, context), let .valueNotFound(type, context):
                return "expected \(type)" + where_(context)
            case let .dataCorrupted(context):
                // At the top: the text is not JSON; deeper: a value its type refuses, which says why.
                return (context.codingPath.isEmpty ? "not valid JSON" : context.debugDescription) + where_(context)
            @unknown default:
                break
            }
        }
        // Foundation's file errors in the system's words (`No such file or directory`), never a
        // `Error Domain=NSCocoaErrorDomain Code=4 ...` dump.
        let foundation = error as NSError
        let underlying = (foundation.userInfo[NSUnderlyingErrorKey] as? Error).map { $0 as NSError }
        if let posix = foundation.domain == NSPOSIXErrorDomain ? foundation : underlying, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func where_(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "" : " at \(path.hasPrefix(".") ? String(path.dropFirst()) : path)"
    }
}
