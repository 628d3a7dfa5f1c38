import Foundation
import PoseCore
import Tensor

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
    /// The largest window file read: 8 MiB. A real window (64 frames) is about 14 KB of JSON or
    /// 14 KB of float32 `.npy`; this leaves room for windows of thousands of frames, and a larger
    /// file is refused before it is read.
    public static let maximumFileBytes = 8 << 20

    /// The window in the file at `url`: its shape and its values, row-major.
    ///
    /// - Throws: ``CoreMLModelError/badWindowFile(file:detail:)`` naming the file by its path when
    ///   it cannot be read (a FIFO or a device is refused, never waited on), holds more than
    ///   ``maximumFileBytes``, or holds no finite `[T, 3, 18]` window.
    public static func read(contentsOf url: URL) throws -> (shape: [Int], values: [Float]) {
        let path = url.path
        do {
            return try read([UInt8](RegularFile.contents(atPath: path, maximumBytes: maximumFileBytes)))
        } catch let error as RegularFileError {
            throw CoreMLModelError.badWindowFile(file: path, detail: error.problem)
        } catch CoreMLModelError.badWindow(let detail) {
            throw CoreMLModelError.badWindowFile(file: path, detail: detail)
        }
    }

    /// Parses `.npy` or JSON bytes and checks the result is `[T, 3, 18]` with finite values.
    public static func read(_ bytes: [UInt8]) throws -> (shape: [Int], values: [Float]) {
        guard bytes.count <= maximumFileBytes else {
            throw CoreMLModelError.badWindow("\(bytes.count) bytes, more than the \(maximumFileBytes) a window file may hold")
        }
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

    /// `.npy` through Tensor's one reader (`NumPyArray`: exact header checks, float32 or float64).
    static func npy(_ bytes: [UInt8]) throws -> ([Int], [Float]) {
        do {
            let tensor = try NumPyArray.decode(bytes)
            return (tensor.shape, tensor.withUnsafeBufferPointer { Array($0) })
        } catch let error as NumPyError {
            throw CoreMLModelError.badWindow("\(error)")
        }
    }

    /// JSON nested arrays `[T][3][18]` of numbers, read in one pass over the bytes with each row
    /// checked as it closes: a file of the wrong shape is refused at its first misfit row, and
    /// memory is the values themselves (no object tree).
    static func json(_ bytes: [UInt8]) throws -> ([Int], [Float]) {
        var reader = WindowJSONReader(bytes: bytes)
        let values = try reader.read()
        return ([values.count / VisionPoseRow.count, 3, VisionJoint.allCases.count], values)
    }
}

/// The hand-written reader behind ``PoseWindowFile``'s JSON: exactly `[[[n, …18], …3], …T]`,
/// JSON whitespace anywhere, numbers in JSON's grammar (at most 64 characters each).
struct WindowJSONReader {
    let bytes: [UInt8]
    var at = 0
    static let rows = 3, joints = 18

    init(bytes: [UInt8]) { self.bytes = bytes }

    static func fail(_ detail: String) -> CoreMLModelError { .badWindow(detail) }

    mutating func read() throws -> [Float] {
        skipSpace()
        guard let first = peek, first == UInt8(ascii: "[") else {
            // `{`, `"`, a number, true / false / null: JSON, but not a window.
            let json = peek.map { "{\"-0123456789tfn".utf8.contains($0) } ?? false
            throw Self.fail(json ? "JSON holds something other than nested arrays of numbers" : "neither a .npy file nor JSON nested arrays [T][3][18]")
        }
        at += 1
        var values: [Float] = []
        var frame = 0
        skipSpace()
        if peek == UInt8(ascii: "]") { at += 1 } else {
            while true {
                try readFrame(frame, into: &values)
                frame += 1
                skipSpace()
                guard let next = peek else { throw Self.fail("JSON ends inside the window (after frame \(frame - 1))") }
                at += 1
                if next == UInt8(ascii: "]") { break }
                guard next == UInt8(ascii: ",") else { throw unexpected(next) }
            }
        }
        skipSpace()
        guard at == bytes.count else { throw Self.fail("JSON has more after the window's closing bracket (byte \(at))") }
        return values
    }

    private mutating func readFrame(_ frame: Int, into values: inout [Float]) throws {
        skipSpace()
        try open("frame \(frame)")
        for row in 0..<Self.rows {
            skipSpace()
            try open("frame \(frame), row \(row)")
            var count = 0
            skipSpace()
            if peek == UInt8(ascii: "]") { at += 1 } else {
                while true {
                    skipSpace()
                    values.append(try number())
                    count += 1
                    skipSpace()
                    guard let next = peek else { throw Self.fail("JSON ends inside frame \(frame)") }
                    at += 1
                    if next == UInt8(ascii: "]") { break }
                    guard next == UInt8(ascii: ","), count < Self.joints else {
                        throw next == UInt8(ascii: ",") ? misfit(frame, "row \(row) has more than \(Self.joints) values") : unexpected(next)
                    }
                }
            }
            guard count == Self.joints else { throw misfit(frame, "row \(row) has \(count) values, expected \(Self.joints)") }
            skipSpace()
            guard let next = peek else { throw Self.fail("JSON ends inside frame \(frame)") }
            at += 1
            if row < Self.rows - 1 {
                guard next == UInt8(ascii: ",") else {
                    throw next == UInt8(ascii: "]") ? misfit(frame, "has \(row + 1) rows, expected \(Self.rows)") : unexpected(next)
                }
            } else {
                guard next == UInt8(ascii: "]") else {
                    throw next == UInt8(ascii: ",") ? misfit(frame, "has more than \(Self.rows) rows") : unexpected(next)
                }
            }
        }
    }

    /// A row or frame of the wrong size: the first frame says the whole file has the wrong
    /// shape; a later one, that the arrays are ragged.
    private func misfit(_ frame: Int, _ detail: String) -> CoreMLModelError {
        Self.fail("\(frame == 0 ? "JSON window" : "JSON arrays are ragged:") frame \(frame) \(detail) (a window is [T, 3, 18])")
    }

    private func unexpected(_ byte: UInt8) -> CoreMLModelError {
        let shown = (0x21...0x7e).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte \(byte)"
        return Self.fail("JSON holds something other than nested arrays [T][3][18] of numbers (\(shown) at byte \(at - 1))")
    }

    private mutating func open(_ what: String) throws {
        guard let byte = peek else { throw Self.fail("JSON ends before \(what)") }
        guard byte == UInt8(ascii: "[") else {
            at += 1
            throw unexpected(byte)
        }
        at += 1
    }

    private var peek: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func skipSpace() {
        while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
    }

    /// One JSON number: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, as `Double` then `Float`
    /// (what a JSON parser gives; out-of-range magnitudes become ±infinity, refused later as not finite).
    private mutating func number() throws -> Float {
        let start = at
        func digits() -> Int {
            let from = at
            while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
            return at - from
        }
        if peek == UInt8(ascii: "-") { at += 1 }
        let integer = digits()
        var valid = integer > 0 && !(integer > 1 && bytes[at - integer] == UInt8(ascii: "0"))
        if valid, peek == UInt8(ascii: ".") { at += 1; valid = digits() > 0 }
        if valid, peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            at += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { at += 1 }
            valid = digits() > 0
        }
        guard valid, at - start <= 64, let value = Double(String(decoding: bytes[start..<at], as: UTF8.self)) else {
            if at == start, let byte = peek { at += 1; throw unexpected(byte) }
            throw Self.fail("JSON number at byte \(start) is not a number of at most 64 characters")
        }
        return Float(value)
    }
}
