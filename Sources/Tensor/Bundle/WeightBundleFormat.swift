#if _endian(big)
#error("PoseKit weight bundles store little-endian data and are mapped as is: big-endian hosts are not supported")
#endif

/// The fixed 64-byte header at the start of every `.pkw` file (all integers little-endian):
///
/// ```
/// offset size field
///      0    8 magic            "PKWEIGHT"
///      8    4 formatVersion    2 (1: PoseNet-only manifest, still read)
///     12    4 headerSize       64
///     16    8 manifestLength   bytes of UTF-8 JSON manifest, starting at byte 64
///     24    8 dataOffset       start of the tensor data section = align64(64 + manifestLength)
///     32    8 fileLength       total file size (detects truncation before anything else)
///     40    8 checksum         WeightChecksum (FNV-1a 64 over 8-byte words) of bytes 64..<fileLength
///     48    4 checksumKind     1 = FNV-1a 64 over little-endian 64-bit words
///     52   12 reserved         zero
/// ```
///
/// The manifest's tensor offsets are relative to `dataOffset` and 64-byte aligned; since
/// `dataOffset` is 64-aligned and `mmap` returns page-aligned memory, every tensor starts on a
/// cache line in memory too.
public struct WeightBundleHeader: Equatable, Sendable {
    /// The first 8 bytes of every bundle.
    public static let magic: [UInt8] = Array("PKWEIGHT".utf8)
    /// The version this PoseKit writes: a generic manifest with a per-network section.
    static let currentVersion: UInt32 = 2
    /// Versions this PoseKit reads.
    static let readableVersions: ClosedRange<UInt32> = 1...2
    static let size = 64
    static let checksumKindFNV1a64Words: UInt32 = 1
    /// Alignment of the data section and of every tensor in it.
    static let alignment = 64
    /// The largest manifest read or written: 2 MiB, ten times the largest PoseKit writes (MediaPipe's
    /// pose_landmark_full graph, 203 KB). A manifest is parsed whole before anything else, so without
    /// a cap a small file could claim seconds and hundreds of MB (an 8 MB one: 11 s and 235 MB).
    public static let maximumManifestLength = 2 << 20

    var formatVersion: UInt32 = currentVersion
    var manifestLength: UInt64
    var dataOffset: UInt64
    var fileLength: UInt64
    var checksum: UInt64
    var checksumKind: UInt32 = checksumKindFNV1a64Words

    /// Rounds `n` up to the next multiple of ``alignment``.
    static func aligned(_ n: Int) -> Int { (n + alignment - 1) / alignment * alignment }

    /// The 64 header bytes.
    func encoded() -> [UInt8] {
        var out = WeightBundleHeader.magic
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        put(formatVersion)
        put(UInt32(WeightBundleHeader.size))
        put(manifestLength)
        put(dataOffset)
        put(fileLength)
        put(checksum)
        put(checksumKind)
        out.append(contentsOf: [UInt8](repeating: 0, count: WeightBundleHeader.size - out.count))
        return out
    }

    /// Parses and sanity-checks the header of a file of `actualLength` bytes.
    /// Throws a ``WeightBundleError`` naming `file` for anything that does not add up.
    static func decode(_ raw: UnsafeRawBufferPointer, actualLength: Int, file: String) throws -> WeightBundleHeader {
        guard actualLength >= size else {
            throw WeightBundleError.truncated(file: file, detail: "\(actualLength) bytes is shorter than the \(size)-byte header")
        }
        guard Array(raw[0..<8]) == magic else {
            throw WeightBundleError.notABundle(file: file)
        }
        func get<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        let version: UInt32 = get(8, UInt32.self)
        guard readableVersions.contains(version) else {
            throw WeightBundleError.unsupportedVersion(file: file, version: Int(version), supported: Int(currentVersion))
        }
        let headerSize: UInt32 = get(12, UInt32.self)
        guard headerSize == UInt32(size) else {
            throw WeightBundleError.corrupt(file: file, detail: "header size \(headerSize), expected \(size)")
        }
        let header = WeightBundleHeader(
            formatVersion: version,
            manifestLength: get(16, UInt64.self),
            dataOffset: get(24, UInt64.self),
            fileLength: get(32, UInt64.self),
            checksum: get(40, UInt64.self),
            checksumKind: get(48, UInt32.self))
        guard header.fileLength == UInt64(actualLength) else {
            if header.fileLength > UInt64(actualLength) {
                throw WeightBundleError.truncated(file: file, detail: "header says \(header.fileLength) bytes, file has \(actualLength)")
            }
            throw WeightBundleError.corrupt(file: file, detail: "header says \(header.fileLength) bytes, file has \(actualLength)")
        }
        guard header.checksumKind == checksumKindFNV1a64Words else {
            throw WeightBundleError.corrupt(file: file, detail: "unknown checksum kind \(header.checksumKind)")
        }
        guard header.manifestLength <= UInt64(maximumManifestLength) else {
            throw WeightBundleError.corrupt(file: file, detail: "manifest of \(header.manifestLength) bytes is larger than the \(maximumManifestLength)-byte limit")
        }
        guard header.manifestLength > 0,
              header.manifestLength <= UInt64(actualLength - size),
              header.dataOffset == UInt64(aligned(size + Int(header.manifestLength))),
              header.dataOffset <= UInt64(actualLength) else {
            throw WeightBundleError.corrupt(file: file, detail: "manifest length \(header.manifestLength) / data offset \(header.dataOffset) do not fit a \(actualLength)-byte file")
        }
        return header
    }
}
