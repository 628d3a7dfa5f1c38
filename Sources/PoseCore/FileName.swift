#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names are bytes; Swift strings are Unicode. A name that is not valid UTF-8
/// (`$'\xff\xfe.ppm'`) would become U+FFFD on the way in, and the replacement name would open
/// another file, or none. So names from argv and `readdir` are decoded losslessly and encoded
/// back to the same bytes for each system call:
///
/// - valid UTF-8 is decoded as usual (every ordinary name is the string it looks like);
/// - each byte of an invalid sequence becomes a private-use scalar, U+10FF00 + the byte
///   (U+10FF80...U+10FFFF), which `bytes(of:)` turns back into that byte. Those scalars are in
///   the last private-use plane's last 128 places; a real name holding one is encoded as that
///   byte too (the price of round-tripping every other name).
///
///     let name = FileName.decode(rawBytes)             // from argv or readdir
///     let fd = FileName.withPath(name) { open($0, O_RDONLY) }
public enum FileName {
    private static let escapeBase: UInt32 = 0x10FF00

    /// The string for raw name bytes (no terminating NUL).
    public static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }   // nearly every name
        var scalars = String.UnicodeScalarView()
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var rest = Array(bytes)[...]
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                scalars.append(Unicode.UTF8.decode(encoded))
                rest = rest.dropFirst(encoded.count)
            case .error(let length):
                for byte in rest.prefix(length) { scalars.append(Unicode.Scalar(escapeBase + UInt32(byte))!) }
                rest = rest.dropFirst(length)
            case .emptyInput:
                return String(scalars)
            }
        }
    }

    /// The string for a C string (an argv entry, a `d_name`).
    public static func decode(cString: UnsafePointer<CChar>) -> String {
        decode(UnsafeRawBufferPointer(start: cString, count: strlen(cString)))
    }

    /// The raw bytes `name` stands for (no terminating NUL).
    public static func bytes(of name: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        for scalar in name.unicodeScalars {
            if scalar.value >= escapeBase + 0x80 && scalar.value <= escapeBase + 0xFF {
                out.append(UInt8(scalar.value - escapeBase))
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }

    /// Calls `body` with the NUL-terminated raw bytes of `name`, for a system call.
    public static func withPath<T>(_ name: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        let raw = bytes(of: name).map { CChar(bitPattern: $0) } + [0]
        return try raw.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// `stat(2)` of `name`'s raw bytes: true when it succeeded.
    public static func status(_ name: String, _ info: inout stat) -> Bool {
        withPath(name) { stat($0, &info) } == 0
    }

    /// The names in a directory (not `.` and `..`), decoded losslessly; nil when it cannot be listed.
    public static func contentsOfDirectory(_ directory: String) -> [String]? {
        guard let stream = withPath(directory, { opendir($0) }) else { return nil }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in decode(raw.prefix(while: { $0 != 0 })) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
