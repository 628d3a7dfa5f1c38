import Foundation
import Testing
@testable import FlatBuffers
@testable import TFLite

/// Truncated, out-of-bounds, cyclic, absurd and lying `.tflite` files: each is refused with one
/// line naming the file and the problem, never a crash.
@Suite struct HostileTFLiteTests {
    /// The error importing `bytes` as `file`, or nil if it imported.
    static func failure(_ bytes: [UInt8], file: String = "bad.tflite") -> String? {
        do {
            _ = try TFLiteImporter.importModel(bytes: bytes, file: file)
            return nil
        } catch let error as TFLiteError {
            #expect(error.file == file)
            #expect(!error.localizedDescription.contains("\n"))
            #expect(error.localizedDescription.hasPrefix("\(file): "))
            return error.detail
        } catch {
            Issue.record("not a TFLiteError: \(error)")
            return "\(error)"
        }
    }

    static func expectFailure(_ model: TinyTFLite, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let message = failure(model.bytes)
        #expect(message?.contains(text) == true, "\(message ?? "imported")", sourceLocation: sourceLocation)
    }

    @Test func theTinyModelImports() {
        #expect(Self.failure(TinyTFLite.sparseConv.bytes) == nil)
    }

    /// Every prefix of the first 4 KB of a real model and 300 prefixes spread over the rest are
    /// refused. The file's last 137 bytes are fields PoseKit never reads (metadata tables), so cuts
    /// in the last 256 bytes only have to end without a crash, either way.
    @Test func truncatedAtAnyOffsetIsRefused() throws {
        let whole = try #require(mediapipeBytes["hand_landmark_lite"])
        let unread = 256
        var cuts = Array(0..<4096)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<300 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            cuts.append(4096 + Int((state >> 33) % UInt64(whole.count - unread - 4096)))
        }
        var refused = 0
        for cut in cuts {
            if Self.failure(Array(whole[0..<cut]), file: "cut.tflite") != nil { refused += 1 } else { Issue.record("a file cut at \(cut) of \(whole.count) bytes imported") }
        }
        #expect(refused == cuts.count)
        for cut in (whole.count - unread)..<whole.count {
            _ = try? TFLiteModel(bytes: Array(whole[0..<cut]), file: "cut.tflite")
        }
    }

    @Test func offsetsAndLengthsOutsideTheBufferAreRefusedWithTheirByteOffset() throws {
        let whole = try #require(mediapipeBytes["hand_landmark_lite"])
        var rootOutside = whole
        rootOutside.replaceSubrange(0..<4, with: [0xf0, 0xff, 0xff, 0x7f])
        #expect(Self.failure(rootOutside)?.contains("byte 0: root table offset points to byte") == true)

        // The subgraphs vector's length (Model field 2) claims 2³¹ − 1 elements.
        let root = try FlatBuffer(bytes: whole).root()
        let subgraphs = try #require(try root.offsetField(2))
        var longVector = whole
        longVector.replaceSubrange(subgraphs..<(subgraphs + 4), with: [0xff, 0xff, 0xff, 0x7f])
        #expect(Self.failure(longVector)?.contains("byte \(subgraphs): vector field 2 of the table at \(root.position) claims 2147483647 elements") == true)

        // The root table's vtable placed before the buffer's start.
        var vtableOutside = whole
        let position = root.position
        vtableOutside.replaceSubrange(position..<(position + 4), with: [0xff, 0xff, 0xff, 0x7f])
        #expect(Self.failure(vtableOutside)?.contains("lies outside the \(whole.count)-byte buffer") == true)

        #expect(Self.failure(Array("not a model at all, just text".utf8))?.contains("no TFL3 file identifier") == true)
        #expect(Self.failure([])?.contains("too short") == true)
    }

    @Test func unsupportedOpsAreNamedWithTheirPosition() {
        var model = TinyTFLite.sparseConv
        model.operators[3].code = 25
        model.operators[3].optionsType = 9
        Self.expectFailure(model, containing: "unsupported TFLite op SOFTMAX (builtin 25) at operator 3")
        model.operators[3].code = 300
        Self.expectFailure(model, containing: "unsupported TFLite op BUILTIN_300 (builtin 300) at operator 3")
    }

    @Test func aCycleIsRefused() {
        var model = TinyTFLite.sparseConv
        // y2 = ADD(y, y3); y3 = ADD(y, y2): each needs the other first.
        model.tensors += [.init(name: "y2", shape: [1, 2, 2, 3]), .init(name: "y3", shape: [1, 2, 2, 3])]
        model.operators += [.init(code: 0, inputs: [6, 8], outputs: [7]), .init(code: 0, inputs: [6, 7], outputs: [8])]
        model.outputs = [8]
        Self.expectFailure(model, containing: "the operators form a cycle (operator 4 (ADD)")
    }

    @Test func absurdShapesAreRefused() {
        var model = TinyTFLite.sparseConv
        model.tensors[0].shape = [1, 65536, 65536, 4]
        Self.expectFailure(model, containing: "tensor 0 'x' has shape [1, 65536, 65536, 4], more than 268435456 elements")
        model.tensors[0].shape = [1, 1, 1, 1, 1, 1, 1, 4]
        Self.expectFailure(model, containing: "tensor 0 'x' has rank 8 (at most 6)")
        model.tensors[0].shape = [1, -1, 2, 4]
        Self.expectFailure(model, containing: "dynamic or empty axes are not supported")
        // Declared output shape that the conv cannot produce.
        model = .sparseConv
        model.tensors[6].shape = [1, 3, 2, 3]
        Self.expectFailure(model, containing: "output shape is [3, 2, 3], but the inputs give [2, 2, 3]")
        // A batch of 2.
        model = .sparseConv
        model.tensors[0].shape = [2, 2, 2, 4]
        Self.expectFailure(model, containing: "only a leading batch axis of 1 is supported")
    }

    @Test func lyingSparsityMetadataIsRefused() {
        func with(_ sparsity: [Int: FBField]) -> TinyTFLite {
            var model = TinyTFLite.sparseConv
            model.tensors[1].sparsity = sparsity
            return model
        }
        Self.expectFailure(with(TinyTFLite.sparsity(denseSizes: [2, 1, 1])), containing: "dense size 2, but the shape [3, 1, 1, 4] says 3")
        Self.expectFailure(with(TinyTFLite.sparsity(segments: [0, 2, 2, 5])), containing: "4 segments ending at 5 for 3 rows and 4 indices")
        Self.expectFailure(with(TinyTFLite.sparsity(segments: [0, 2, 4])), containing: "3 segments ending at 4 for 3 rows")
        Self.expectFailure(with(TinyTFLite.sparsity(segments: [0, 3, 1, 4])), containing: "segment 1 runs backwards")
        Self.expectFailure(with(TinyTFLite.sparsity(indices: [0, 4, 1, 2])), containing: "index 4 at position 1 is outside 0..<4")
        Self.expectFailure(with(TinyTFLite.sparsity(indices: [3, 0, 1, 2])), containing: "index 0 at position 1 is outside 0..<4 or out of order")
        Self.expectFailure(with(TinyTFLite.sparsity(traversal: [1, 0, 2, 3])), containing: "traversal order [1, 0, 2, 3] is not supported")
        // Metadata for 4 values over a buffer of 3.
        var short = TinyTFLite.sparseConv
        short.buffers[1] = TinyTFLite.halves([0x3C00, 0x4000, 0x4200])
        Self.expectFailure(short, containing: "lists 4 indices for 3 stored values")
        // Dense weights bigger than a file of this size may hold.
        var huge = TinyTFLite.sparseConv
        huge.tensors[1].shape = [3, 1, 1, 1 << 24]
        huge.tensors[2].shape = huge.tensors[1].shape
        huge.tensors[3].shape = huge.tensors[1].shape
        Self.expectFailure(huge, containing: "more constant data than a")
    }

    @Test func weightsThatAreNotConstantAreRefused() {
        var model = TinyTFLite.sparseConv
        model.operators[1].inputs = [0]   // DEQUANTIZE of the input activation
        Self.expectFailure(model, containing: "which is not a constant")
        model = .sparseConv
        model.operators[3].inputs = [0, 0, 5]
        Self.expectFailure(model, containing: "expects constant weights in tensor 0 'x'")
    }
}
