import Foundation
import Testing
import TestSupport
@testable import Tensor
#if canImport(Glibc)
import Glibc
#endif

/// `.npy` reading and writing: NumPy's own bytes (written out here as NumPy 1.x writes them)
/// read back exactly, and every header or size that does not fit is one `NumPyError`.
struct NumPyArrayTests {
    /// A `.npy` file as NumPy writes it: the preamble for `version`, `header` padded with spaces
    /// and a newline so the data starts at a multiple of 64, then `data`.
    static func file(_ header: String, version: UInt8 = 1, data: [UInt8]) -> [UInt8] {
        let preamble = version == 1 ? 10 : 12
        var text = Array(header.utf8)
        let unpadded = preamble + text.count + 1
        text += [UInt8](repeating: 0x20, count: (64 - unpadded % 64) % 64) + [0x0A]
        var bytes: [UInt8] = [0x93] + Array("NUMPY".utf8) + [version, 0]
        let length = text.count
        bytes += version == 1 ? [UInt8(length & 0xFF), UInt8(length >> 8)]
            : [UInt8(length & 0xFF), UInt8((length >> 8) & 0xFF), UInt8((length >> 16) & 0xFF), UInt8(length >> 24)]
        return bytes + text + data
    }

    static func float32(_ values: [Float]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) } }

    @Test func readsWhatNumPyWrites() throws {
        let values: [Float] = [1, -2.5, .pi, 1e-30, 65504, -0.0]
        let tensor = try NumPyArray.decode(Self.file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data: Self.float32(values)))
        #expect(tensor.shape == [2, 3])
        #expect(tensor.withUnsafeBufferPointer { Array($0) }.map(\.bitPattern) == values.map(\.bitPattern))
        // Version 2.0 and 3.0, double quotes, keys in another order, float64 narrowed, a 1-tuple, a scalar.
        let doubles: [Double] = [0.1, -3, 1e300 * 0 + 2]
        let f8 = doubles.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        let wide = try NumPyArray.decode(Self.file("{\"shape\": (3,), \"descr\": \"<f8\", \"fortran_order\": False}", version: 3, data: f8))
        #expect(wide.shape == [3] && wide.withUnsafeBufferPointer { Array($0) } == doubles.map { Float($0) })
        let scalar = try NumPyArray.decode(Self.file("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", version: 2, data: Self.float32([7])))
        #expect(scalar.shape == [1] && scalar.withUnsafeBufferPointer { $0[0] } == 7)
        // What encode writes, decode reads (the writer's header is NumPy's).
        let again = try NumPyArray.decode(NumPyArray.encode(tensor))
        #expect(again.shape == [2, 3] && again.withUnsafeBufferPointer { Array($0) }.map(\.bitPattern) == values.map(\.bitPattern))
    }

    /// Headers NumPy never writes, each refused with what is wrong (the first reader accepted
    /// several: a key given twice or unknown, `(3)` as a shape, an empty axis between commas).
    @Test func refusesEveryHeaderThatIsNotExact() {
        let data = Self.float32([1, 2, 3])
        let cases: [(String, String)] = [
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (3,)}", "'shape' given twice"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'extra': 1}", "unknown key 'extra'"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "not a tuple"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (,3)}", "an axis size"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3,) x}", "expected ',' or '}'"),
            ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
            ("{'descr': '>f4', 'fortran_order': False, 'shape': (3,)}", "unsupported .npy dtype >f4"),
            ("{'descr': '<i4', 'fortran_order': False, 'shape': (3,)}", "unsupported .npy dtype <i4"),
            ("{'descr': '<f4', 'fortran_order': True, 'shape': (3,)}", "Fortran order"),
            ("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (3,)}", "True or False"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0)}", "empty axis"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} trailing", "the end of the header"),
            ("['descr', '<f4']", "expected '{'"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536)}", "more than 2147483647 elements"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 3)}", "more than 8 axes"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "an axis size"),
            ("{'descr': '<f4', 'fortran_order': False, 'shape': (4,)}", "needs 16 bytes of data, the file has 12"),
        ]
        for (header, words) in cases {
            do {
                _ = try NumPyArray.decode(Self.file(header, data: data))
                Issue.record("\(header) was read")
            } catch {
                #expect(error is NumPyError && "\(error)".contains(words), "\(header): \(error)")
            }
        }
    }

    @Test func refusesBadPreamblesAndSizes() {
        let good = Self.file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", data: Self.float32([1]))
        var minor = good; minor[7] = 1
        var huge = good; huge[8] = 0xFF; huge[9] = 0xFF   // header of 65535 bytes, past the file
        var v2 = Self.file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", version: 2, data: Self.float32([1]))
        v2[11] = 0x7F   // a 2 GB header
        let cases: [([UInt8], String)] = [
            (Array(good.prefix(5)), "no \\x93NUMPY magic"),
            (Array(good.prefix(8)), "end inside the preamble"),
            (minor, "format version 1.1"),
            (huge, "header of 65535 bytes"),
            (v2, "at most 65536"),
            (Array(v2.prefix(11)), "end inside the header length"),
            (good + [0], "the file has 5"),
        ]
        for (bytes, words) in cases {
            do {
                _ = try NumPyArray.decode(bytes)
                Issue.record("\(words): read")
            } catch {
                #expect("\(error)".contains(words), "\(error)")
            }
        }
    }

    /// A FIFO is refused at once (the first reader opened it blocking: no writer, no end), a
    /// missing file says why, and both name the path.
    @Test func readsOnlyRegularFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("npy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("window.npy")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let outcome = ThreadOutcome()
        Thread.detachNewThread {
            do { _ = try NumPyArray.read(contentsOf: fifo); outcome.set("read") } catch { outcome.set("\(error)") }
        }
        let message = outcome.wait(seconds: HangGuard.seconds)   // at once, or never (a hang)
        if message == nil {   // the old reader waits for a writer: give it one so the thread ends
            let fd = open(fifo.path, O_WRONLY)
            close(fd)
        }
        #expect(message?.contains("\(fifo.path): not a regular file") == true, "\(message ?? "still waiting: the reader waits for a writer")")
        do {
            _ = try NumPyArray.read(contentsOf: dir.appendingPathComponent("missing.npy"))
        } catch {
            #expect("\(error)".contains("missing.npy: No such file or directory"), "\(error)")
        }
        let real = dir.appendingPathComponent("real.npy")
        try Data(Self.file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", data: Self.float32([3, 4]))).write(to: real)
        #expect(try NumPyArray.read(contentsOf: real).withUnsafeBufferPointer { Array($0) } == [3, 4])
    }
}

/// A result another thread delivers, waited for with a time limit.
final class ThreadOutcome: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: String?

    func set(_ text: String) { condition.lock(); value = text; condition.broadcast(); condition.unlock() }

    func wait(seconds: Double) -> String? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock(); defer { condition.unlock() }
        while value == nil && condition.wait(until: deadline) {}
        return value
    }
}
