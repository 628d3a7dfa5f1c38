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
    /// The most elements an array may hold (2^31 − 1, as Tensor's kernels index them).
    public static let maximumElementCount = Int(Int32.max)
    /// The most axes a shape may have.
    public static let maximumRank = 8

    static let magic: [UInt8] = [0x93, 0x4E, 0x55, 0x4D, 0x50, 0x59]   // \x93NUMPY

    /// Reads a float32 array from `.npy` bytes. Accepts `<f4` (and `<f8`, narrowed to float32).
    /// A shape `()` (a scalar) reads as `[1]`.
    /// - Throws: ``NumPyError`` naming the problem.
    public static func decode(_ data: Data) throws -> Tensor {
        try data.withUnsafeBytes { try decode(bytes: $0) }
    }

    /// `decode(_:)` of bytes in an array.
    public static func decode(_ bytes: [UInt8]) throws -> Tensor {
        try bytes.withUnsafeBytes { try decode(bytes: $0) }
    }

    /// `decode(_:)` of bytes in place (a mapped file is read without a copy). Every size in
    /// the file is checked against the bytes that are there before anything is allocated, so
    /// memory is bounded by the input's size.
    public static func decode(bytes: UnsafeRawBufferPointer) throws -> Tensor {
        try decodeWithType(bytes: bytes).tensor
    }

    /// ``decode(bytes:)``, and the file's dtype as it names it (`<f4`, or `<f8` narrowed to float32).
    public static func decodeWithType(bytes: UnsafeRawBufferPointer) throws -> (tensor: Tensor, dtype: String) {
        guard bytes.count >= magic.count, bytes.prefix(magic.count).elementsEqual(magic) else { throw NumPyError.notNumPy }
        guard bytes.count >= 10 else { throw NumPyError.truncated("\(bytes.count) bytes end inside the preamble") }
        let (major, minor) = (bytes[6], bytes[7])
        let headerLength: Int, headerStart: Int
        switch (major, minor) {
        case (1, 0):
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8
            headerStart = 10
        case (2, 0), (3, 0):
            guard bytes.count >= 12 else { throw NumPyError.truncated("\(bytes.count) bytes end inside the header length") }
            headerLength = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
            headerStart = 12
        default:
            throw NumPyError.badHeader("format version \(major).\(minor) (1.0, 2.0 and 3.0 are read)")
        }
        guard headerLength <= maximumHeaderLength else {
            throw NumPyError.badHeader("header of \(headerLength) bytes (at most \(maximumHeaderLength))")
        }
        guard bytes.count >= headerStart + headerLength else {
            throw NumPyError.truncated("header of \(headerLength) bytes, the file has \(bytes.count - headerStart) after the preamble")
        }
        let header = try NumPyHeader(UnsafeRawBufferPointer(rebasing: bytes[headerStart..<(headerStart + headerLength)]))
        let elementSize: Int
        switch header.descr {
        case "<f4": elementSize = 4
        case "<f8": elementSize = 8
        default: throw NumPyError.unsupportedType(header.descr)
        }
        guard !header.fortranOrder else { throw NumPyError.badHeader("Fortran order is not read (C order only)") }
        let shape = header.shape
        guard shape.count <= maximumRank else { throw NumPyError.badShape("\(shape.count) axes (at most \(maximumRank))") }
        var count = 1
        for size in shape {
            guard size > 0 else { throw NumPyError.badShape("\(shape) has an empty axis") }
            let (product, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow, product <= maximumElementCount else {
                throw NumPyError.badShape("\(shape) holds more than \(maximumElementCount) elements")
            }
            count = product
        }
        let dataStart = headerStart + headerLength
        let expected = count * elementSize
        guard bytes.count - dataStart == expected else {
            throw NumPyError.truncated("shape \(shape) needs \(expected) bytes of data, the file has \(bytes.count - dataStart)")
        }
        let tensor = try Tensor(zeros: shape.isEmpty ? [1] : shape)
        tensor.withUnsafeMutableBufferPointer { values in
            let base = bytes.baseAddress! + dataStart
            for i in 0..<count {
                if elementSize == 4 {
                    values[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                } else {
                    values[i] = Float(Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                }
            }
        }
        return (tensor, header.descr)
    }

    /// Reads a `.npy` file: a regular file only (opened without waiting, so a FIFO or a device
    /// is refused, never waited on or read forever), mapped, not copied.
    /// - Throws: ``NumPyError/file(path:detail:)`` naming the path.
    public static func read(contentsOf url: URL) throws -> Tensor {
        try readWithType(contentsOf: url).tensor
    }

    /// ``read(contentsOf:)``, and the file's dtype as it names it (`<f4`, or `<f8` narrowed to float32).
    public static func readWithType(contentsOf url: URL) throws -> (tensor: Tensor, dtype: String) {
        let path = url.path
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw NumPyError.file(path: path, detail: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw NumPyError.file(path: path, detail: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw NumPyError.file(path: path, detail: "not a regular file") }
        let size = Int(info.st_size)
        do {
            guard size > 0 else { throw NumPyError.notNumPy }
            guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
                throw NumPyError.file(path: path, detail: "cannot map: \(String(cString: strerror(errno)))")
            }
            defer { munmap(mapped, size) }
            return try decodeWithType(bytes: UnsafeRawBufferPointer(start: mapped, count: size))
        } catch let error as NumPyError {
            if case .file = error { throw error }
            throw NumPyError.file(path: path, detail: error.description)
        }
    }

    /// The `.npy` (version 1.0, `<f4`) bytes of `tensor` with `shape` (default: the tensor's).
    public static func encode(_ tensor: Tensor, shape: [Int]? = nil) -> Data {
        let shape = shape ?? tensor.shape
        precondition(shape.reduce(1, *) == tensor.count, "NumPyArray.encode: shape \(shape) for \(tensor.count) values")
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
}

/// A `.npy` header parsed exactly: the Python dict literal NumPy writes,
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, with exactly these three keys
/// (single- or double-quoted, in any order, each once), a trailing comma allowed, and only
/// spaces (and the final newline) around it. Anything else is ``NumPyError/badHeader(_:)``.
struct NumPyHeader {
    let descr: String
    let fortranOrder: Bool
    let shape: [Int]

    init(_ bytes: UnsafeRawBufferPointer) throws {
        var p = NumPyHeaderParser(text: Array(bytes))
        var descr: String?, fortranOrder: Bool?, shape: [Int]?
        p.skipSpace()
        try p.expect("{")
        while true {
            p.skipSpace()
            if p.peek == "}" { break }
            let key = try p.quoted()
            p.skipSpace()
            try p.expect(":")
            p.skipSpace()
            switch key {
            case "descr" where descr == nil: descr = try p.quoted()
            case "fortran_order" where fortranOrder == nil: fortranOrder = try p.boolean()
            case "shape" where shape == nil: shape = try p.tuple()
            case "descr", "fortran_order", "shape": throw NumPyError.badHeader("'\(key)' given twice")
            default: throw NumPyError.badHeader("unknown key '\(key)'")
            }
            p.skipSpace()
            if p.peek == "," { p.at += 1; continue }
            guard p.peek == "}" else { throw p.unexpected("',' or '}'") }
        }
        p.at += 1
        p.skipSpace()
        guard p.at == p.text.count else { throw p.unexpected("the end of the header") }
        guard let descr, let fortranOrder, let shape else {
            throw NumPyError.badHeader("no '\(descr == nil ? "descr" : fortranOrder == nil ? "fortran_order" : "shape")'")
        }
        (self.descr, self.fortranOrder, self.shape) = (descr, fortranOrder, shape)
    }
}

/// A cursor over a `.npy` header's bytes, for ``NumPyHeader``.
struct NumPyHeaderParser {
    let text: [UInt8]
    var at = 0

    var peek: Character? { at < text.count ? Character(Unicode.Scalar(text[at])) : nil }

    mutating func skipSpace() {
        while at < text.count, text[at] == 0x20 || text[at] == 0x0A || text[at] == 0x09 || text[at] == 0x0D { at += 1 }
    }

    func unexpected(_ expected: String) -> NumPyError {
        let found = at < text.count ? ((0x21...0x7e).contains(text[at]) ? "'\(Character(Unicode.Scalar(text[at])))'" : "byte \(text[at])") : "its end"
        return NumPyError.badHeader("expected \(expected) at byte \(at), found \(found)")
    }

    mutating func expect(_ character: Character) throws {
        guard peek == character else { throw unexpected("'\(character)'") }
        at += 1
    }

    /// A quoted string of printable ASCII without escapes (keys and dtypes are such).
    mutating func quoted() throws -> String {
        guard let quote = peek, quote == "'" || quote == "\"" else { throw unexpected("a quoted string") }
        at += 1
        let start = at
        while at < text.count, text[at] != quote.asciiValue! {
            guard (0x20...0x7e).contains(text[at]), text[at] != 0x5C else { throw unexpected("a plain string character") }
            at += 1
        }
        guard at < text.count, at - start <= 64 else { throw NumPyError.badHeader("string at byte \(start - 1) is unterminated or too long") }
        at += 1
        return String(decoding: text[start..<(at - 1)], as: UTF8.self)
    }

    mutating func boolean() throws -> Bool {
        for (word, value) in [("True", true), ("False", false)] where text[at...].starts(with: word.utf8) {
            at += word.utf8.count
            return value
        }
        throw unexpected("True or False")
    }

    /// `()`, `(n,)` or `(n, m, …)` with an optional trailing comma: Python's tuple syntax.
    mutating func tuple() throws -> [Int] {
        try expect("(")
        var sizes: [Int] = []
        var trailingComma = false
        while true {
            skipSpace()
            if peek == ")" { break }
            let start = at
            while at < text.count, (0x30...0x39).contains(text[at]) { at += 1 }
            guard at > start, at - start <= 18, let size = Int(String(decoding: text[start..<at], as: UTF8.self)) else {
                throw unexpected("an axis size")
            }
            sizes.append(size)
            guard sizes.count <= NumPyArray.maximumRank else { throw NumPyError.badShape("more than \(NumPyArray.maximumRank) axes") }
            skipSpace()
            trailingComma = peek == ","
            if trailingComma { at += 1 } else { guard peek == ")" else { throw unexpected("',' or ')'") } }
        }
        // `(3)` is the integer 3 in Python, not a tuple.
        guard sizes.count != 1 || trailingComma else { throw NumPyError.badShape("(\(sizes[0])) is not a tuple (write (\(sizes[0]),))") }
        at += 1
        return sizes
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
