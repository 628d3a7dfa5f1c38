import Foundation

/// NumPy's `.npy` format (version 1.0–3.0), float32 little-endian, C order: what PoseKit reads
/// as model inputs and golden tensors, and writes as model outputs (`posekit run`).
///
/// The header is a Python dict literal: `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 224, 224, 3), }`
/// padded with spaces to a multiple of 64 bytes. Reading checks every field and size against the
/// bytes that are there, so a file with a bad header, dtype or shape is one ``NumPyError``.
public enum NumPyArray {
    /// The largest header accepted (NumPy writes a few hundred bytes).
    public static let maximumHeaderLength = 65_536

    /// Reads a float32 array from `.npy` bytes. Accepts `<f4` (and `<f8`, narrowed to float32).
    /// - Throws: ``NumPyError`` naming the problem.
    public static func decode(_ data: Data) throws -> Tensor {
        let bytes = [UInt8](data)
        let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]   // \x93NUMPY
        guard bytes.count >= 10, Array(bytes[0..<6]) == magic else { throw NumPyError.notNumPy }
        let major = bytes[6]
        let headerLength: Int, headerStart: Int
        switch major {
        case 1:
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        case 2, 3:
            guard bytes.count >= 12 else { throw NumPyError.truncated("header length") }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
            headerStart = 12
        default:
            throw NumPyError.badHeader("format version \(major).\(bytes[7]) (1.0 to 3.0 are read)")
        }
        guard headerLength <= maximumHeaderLength else { throw NumPyError.badHeader("header of \(headerLength) bytes") }
        guard bytes.count >= headerStart + headerLength else { throw NumPyError.truncated("header") }
        guard let header = String(bytes: bytes[headerStart..<headerStart + headerLength], encoding: .utf8) else {
            throw NumPyError.badHeader("header is not text")
        }
        let descr = try field("descr", in: header)
        let elementSize: Int
        switch descr {
        case "'<f4'": elementSize = 4
        case "'<f8'": elementSize = 8
        default: throw NumPyError.unsupportedType(descr.trimmingCharacters(in: CharacterSet(charactersIn: "'\"")))
        }
        guard try field("fortran_order", in: header) == "False" else { throw NumPyError.badHeader("Fortran order is not read") }
        let shape = try parseShape(try field("shape", in: header))
        var count = 1
        for size in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, product <= Int(Int32.max) else { throw NumPyError.badShape("\(shape) is too large") }
            count = product
        }
        let dataStart = headerStart + headerLength
        let expected = count * elementSize
        guard bytes.count - dataStart == expected else {
            throw NumPyError.truncated("shape \(shape) needs \(expected) bytes of data, the file has \(bytes.count - dataStart)")
        }
        var values = [Float](repeating: 0, count: count)
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress! + dataStart
            for i in 0..<count {
                if elementSize == 4 {
                    values[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                } else {
                    values[i] = Float(Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                }
            }
        }
        return try Tensor(shape: shape.isEmpty ? [1] : shape, values: values)
    }

    /// Reads a `.npy` file.
    public static func read(contentsOf url: URL) throws -> Tensor {
        let data: Data
        do { data = try Data(contentsOf: url, options: .mappedIfSafe) } catch {
            throw NumPyError.file(path: url.path, detail: "cannot read")
        }
        do { return try decode(data) } catch let error as NumPyError {
            throw NumPyError.file(path: url.path, detail: error.description)
        }
    }

    /// The `.npy` (version 1.0, `<f4`) bytes of `tensor` with `shape` (default: the tensor's).
    public static func encode(_ tensor: Tensor, shape: [Int]? = nil) -> Data {
        let shape = shape ?? tensor.shape
        let dims = shape.map(String.init).joined(separator: ", ") + (shape.count == 1 ? "," : "")
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (\(dims)), }"
        let unpadded = 10 + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        var data = Data([0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59, 1, 0])
        let length = UInt16(header.utf8.count)
        data.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8)])
        data.append(contentsOf: Array(header.utf8))
        tensor.withUnsafeBufferPointer { values in
            var out = [UInt8](repeating: 0, count: values.count * 4)
            for (i, v) in values.enumerated() {
                let bits = v.bitPattern.littleEndian
                out[4 * i] = UInt8(bits & 0xFF); out[4 * i + 1] = UInt8((bits >> 8) & 0xFF)
                out[4 * i + 2] = UInt8((bits >> 16) & 0xFF); out[4 * i + 3] = UInt8(bits >> 24)
            }
            data.append(contentsOf: out)
        }
        return data
    }

    /// The text of `key`'s value in the header dict (up to the next top-level comma).
    static func field(_ key: String, in header: String) throws -> String {
        guard let keyRange = header.range(of: "'\(key)':") ?? header.range(of: "\"\(key)\":") else {
            throw NumPyError.badHeader("no '\(key)'")
        }
        var depth = 0
        var value = ""
        for ch in header[keyRange.upperBound...] {
            if ch == "(" { depth += 1 }
            if ch == ")" { depth -= 1; if depth < 0 { break } }
            if (ch == "," || ch == "}") && depth == 0 { break }
            value.append(ch)
        }
        return value.trimmingCharacters(in: .whitespaces)
    }

    static func parseShape(_ text: String) throws -> [Int] {
        guard text.hasPrefix("("), text.hasSuffix(")") else { throw NumPyError.badShape(text) }
        let inner = text.dropFirst().dropLast()
        var shape: [Int] = []
        for part in inner.split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let size = Int(trimmed), size > 0, size <= Int(Int32.max) else { throw NumPyError.badShape(text) }
            shape.append(size)
        }
        guard shape.count <= 8 else { throw NumPyError.badShape("\(shape.count) axes") }
        return shape
    }
}

/// Why a `.npy` file was refused.
public enum NumPyError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case notNumPy
    case truncated(String)
    case badHeader(String)
    case unsupportedType(String)
    case badShape(String)
    case file(path: String, detail: String)

    public var description: String {
        switch self {
        case .notNumPy: return "not a NumPy .npy file (no \\x93NUMPY magic)"
        case .truncated(let what): return "truncated .npy: \(what)"
        case .badHeader(let what): return "bad .npy header: \(what)"
        case .unsupportedType(let descr): return "unsupported .npy dtype \(descr) (float32 '<f4' or float64 '<f8' are read)"
        case .badShape(let what): return "bad .npy shape: \(what)"
        case .file(let path, let detail): return "\(path): \(detail)"
        }
    }
    public var errorDescription: String? { description }
}
