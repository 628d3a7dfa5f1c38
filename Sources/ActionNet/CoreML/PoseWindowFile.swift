import Foundation
import PoseCore

/// Reads one Create ML input window from a file: what an iOS app exports to check that a Linux
/// server classifies it the same way.
///
/// Two formats, chosen by content:
/// - NumPy `.npy` (version 1.0 – 3.0): little-endian float32 (`<f4`) or float64 (`<f8`), C order,
///   shape `[T, 3, 18]`;
/// - JSON: nested arrays `[T][3][18]` of numbers.
///
/// Every value must be finite. Errors are one line: ``CoreMLModelError/badWindowFile(file:detail:)``
/// naming the file (`w.npy: window: shape [45, 3, 18] ...`, as `posekit actions --window` prints
/// it), ``CoreMLModelError/badWindow(_:)`` for bytes.
public enum PoseWindowFile {
    /// The window in the file at `url`: its shape and its values, row-major.
    ///
    /// - Throws: ``CoreMLModelError/badWindowFile(file:detail:)`` naming the file by its path when
    ///   it cannot be read (a FIFO or a device is refused, never waited on) or holds no finite
    ///   `[T, 3, 18]` window.
    public static func read(contentsOf url: URL) throws -> (shape: [Int], values: [Float]) {
        let path = url.path
        do {
            return try read([UInt8](RegularFile.contents(atPath: path)))
        } catch let error as RegularFileError {
            throw CoreMLModelError.badWindowFile(file: path, detail: error.problem)
        } catch CoreMLModelError.badWindow(let detail) {
            throw CoreMLModelError.badWindowFile(file: path, detail: detail)
        }
    }

    /// Parses `.npy` or JSON bytes and checks the result is `[T, 3, 18]` with finite values.
    public static func read(_ bytes: [UInt8]) throws -> (shape: [Int], values: [Float]) {
        let (shape, values) = bytes.starts(with: npyMagic) ? try npy(bytes) : try json(bytes)
        guard shape.count == 3, shape[0] >= 1, shape[1] == 3, shape[2] == VisionJoint.allCases.count else {
            throw CoreMLModelError.badWindow("shape \(shape), expected [T, 3, 18]")
        }
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw CoreMLModelError.badWindow("value \(values[bad]) at [\(bad / 54), \(bad % 54 / 18), \(bad % 18)] is not finite")
        }
        return (shape, values)
    }

    static let npyMagic: [UInt8] = [0x93] + Array("NUMPY".utf8)

    /// `.npy`: magic, version (2 bytes), header length (2 bytes in 1.0, 4 in 2.0+), a Python-dict
    /// header (`descr`, `fortran_order`, `shape`), then the data.
    static func npy(_ b: [UInt8]) throws -> ([Int], [Float]) {
        guard b.count >= 10 else { throw CoreMLModelError.badWindow(".npy file of \(b.count) bytes is truncated") }
        let major = b[6]
        let (lengthBytes, start) = major == 1 ? (2, 8) : (4, 8)
        guard [1, 2, 3].contains(major), b.count >= start + lengthBytes else { throw CoreMLModelError.badWindow("unsupported .npy version \(major)") }
        let headerLength = (0..<lengthBytes).reduce(0) { $0 | Int(b[start + $1]) << (8 * $1) }
        let dataStart = start + lengthBytes + headerLength
        guard dataStart <= b.count else { throw CoreMLModelError.badWindow(".npy header runs past the end of the file") }
        let header = String(decoding: b[(start + lengthBytes)..<dataStart], as: UTF8.self)
        func entry(_ key: String) -> String? {
            guard let keyRange = header.range(of: "'\(key)':") else { return nil }
            return String(header[keyRange.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        guard let descr = entry("descr"), let order = entry("fortran_order"), let shapeText = entry("shape") else {
            throw CoreMLModelError.badWindow(".npy header lacks descr, fortran_order or shape")
        }
        let width: Int
        if descr.hasPrefix("'<f4'") || descr.hasPrefix("'f4'") { width = 4 } else if descr.hasPrefix("'<f8'") { width = 8 } else {
            throw CoreMLModelError.badWindow(".npy data type \(descr.prefix(while: { $0 != "," })) is not float32 or float64 (little-endian)")
        }
        guard order.hasPrefix("False") else { throw CoreMLModelError.badWindow(".npy in Fortran order is not supported") }
        guard shapeText.hasPrefix("("), let close = shapeText.firstIndex(of: ")") else { throw CoreMLModelError.badWindow(".npy shape is unreadable") }
        let parts = shapeText[shapeText.index(after: shapeText.startIndex)..<close].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let shape = try parts.map { part -> Int in
            guard let n = Int(part), n >= 0, n <= 1 << 24 else { throw CoreMLModelError.badWindow(".npy shape entry '\(part)' is not a size") }
            return n
        }
        let count = shape.reduce(1, *)
        guard b.count - dataStart == count * width else {
            throw CoreMLModelError.badWindow(".npy data is \(b.count - dataStart) bytes, shape \(shape) needs \(count * width)")
        }
        let values: [Float] = b.withUnsafeBytes { raw in
            (0..<count).map { i in
                let at = dataStart + i * width
                return width == 4 ? Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
                    : Float(Double(bitPattern: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))))
            }
        }
        return (shape, values)
    }

    /// JSON nested arrays `[T][3][18]` (any nesting is read; the shape check follows).
    static func json(_ bytes: [UInt8]) throws -> ([Int], [Float]) {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]) } catch {
            throw CoreMLModelError.badWindow("neither a .npy file nor JSON nested arrays [T][3][18]")
        }
        var values: [Float] = []
        func shape(of node: Any, depth: Int) throws -> [Int] {
            if let number = node as? NSNumber, !(node is Bool) {
                values.append(Float(number.doubleValue))
                return []
            }
            guard let array = node as? [Any], depth < 8 else { throw CoreMLModelError.badWindow("JSON holds something other than nested arrays of numbers") }
            let shapes = try array.map { try shape(of: $0, depth: depth + 1) }
            guard let first = shapes.first else { return [0] }
            guard shapes.allSatisfy({ $0 == first }) else { throw CoreMLModelError.badWindow("JSON arrays are ragged (rows of different lengths)") }
            return [array.count] + first
        }
        let s = try shape(of: object, depth: 0)
        return (s, values)
    }
}
