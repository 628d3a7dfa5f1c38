import Protobuf
import Testing
import TestSupport
@testable import CoreMLFormat

/// The one rule for Core ML weights (`CoreMLWeights`), on hand-written `WeightParams` messages
/// with hand-checked values.
struct CoreMLWeightsTests {
    /// A `WeightParams` message built by `build`, read back.
    static func read(_ build: (inout ProtobufWriter) -> Void) throws -> CoreMLWeights {
        var writer = ProtobufWriter()
        build(&writer)
        return try CoreMLWeights.read(ProtobufFields(ProtobufMessage(buffer: writer.bytes)), what: "w")
    }

    static func halves(_ bits: [UInt16]) -> [UInt8] { bits.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] } }

    static func refusal(_ build: (inout ProtobufWriter) -> Void) -> String? {
        do { _ = try read(build); return nil } catch { return "\(error)" }
    }

    /// IEEE binary16 → binary32, exact: 1, −2, the smallest subnormal 2^−24, the largest half
    /// 65504, −0 and 0x3555 = 1365/4096 (values worked out by hand from the bit patterns).
    @Test func float16IsWidenedExactly() throws {
        let weights = try Self.read { $0.bytes(CoreMLField.weightFloat16, Self.halves([0x3C00, 0xC000, 0x0001, 0x7BFF, 0x8000, 0x3555])) }
        #expect(weights.storage == .float16)
        let expected: [Float] = [1, -2, 0x1p-24, 65504, -0.0, 1365.0 / 4096]
        #expect(weights.values.map(\.bitPattern) == expected.map(\.bitPattern))
    }

    @Test func float32IsTakenAsStored() throws {
        let values: [Float] = [0.1, -3.5e-30, 7]
        let weights = try Self.read { $0.packedFloats(CoreMLField.weightFloat, values) }
        #expect(weights.storage == .float32)
        #expect(weights.values == values)
    }

    @Test func whatNoFamilyRunsIsRefusedByName() {
        #expect(Self.refusal { $0.bytes(CoreMLField.weightFloat16, Self.halves([0x3C00, 0x7E00])) } == "w hold a value that is not finite (nan at index 1)")
        #expect(Self.refusal { $0.bytes(CoreMLField.weightFloat16, Self.halves([0xFC00])) } == "w hold a value that is not finite (-inf at index 0)")
        #expect(Self.refusal { $0.bytes(CoreMLField.weightFloat16, [0, 0x3C, 0]) } == "w hold 3 bytes of float16, an odd number")
        #expect(Self.refusal { w in
            w.bytes(CoreMLField.weightFloat16, Self.halves([0x3C00]))
            w.packedFloats(CoreMLField.weightFloat, [1])
        } == "w hold both float32 and float16 values")
        #expect(Self.refusal { $0.message(CoreMLField.weightQuantization) { $0.uint(1, 8) } } == "w stored as quantized values are not supported (float32 or float16 only)")
        #expect(Self.refusal { $0.bytes(CoreMLField.weightInt8Raw, [1, 2]) } == "w stored as int8 values are not supported (float32 or float16 only)")
        #expect(throws: CoreMLFormatError("w missing")) { try CoreMLWeights.read(nil, what: "w") }
    }
}
