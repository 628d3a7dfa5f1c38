import PoseNet
import Foundation
import Tensor

extension PoseNetOutput {
    /// Loads the heads stored in a reference case folder (as in `shared/reference/<case>/`):
    /// `meta.json` gives `output_stride` and each head's file and `shape_hwc`, the files hold raw
    /// little-endian float32 in HWC order. Reads `heatmap` (after sigmoid), `offsets`,
    /// `displacement_fwd` and `displacement_bwd`.
    ///
    /// - Throws: ``PoseDecodingError/unreadableReference(_:)`` when `meta.json` or a file is
    ///   missing, malformed or of the wrong size; the shape and value errors of
    ///   ``init(heatmapScores:offsets:displacementsFwd:displacementsBwd:outputStride:)``.
    public init(referenceFolder folder: URL) throws {
        struct Head: Decodable { let file: String; let shape_hwc: [Int] }
        struct Meta: Decodable { let output_stride: Int; let outputs: [String: Head] }
        let metaURL = folder.appendingPathComponent("meta.json")
        let meta: Meta
        do {
            meta = try JSONDecoder().decode(Meta.self, from: Data(contentsOf: metaURL))
        } catch {
            throw PoseDecodingError.unreadableReference("\(metaURL.path): \(error)")
        }
        func load(_ name: String) throws -> Tensor {
            guard let head = meta.outputs[name] else {
                throw PoseDecodingError.unreadableReference("\(metaURL.path) lists no output \"\(name)\"")
            }
            let url = folder.appendingPathComponent(head.file)
            guard let data = try? Data(contentsOf: url) else {
                throw PoseDecodingError.unreadableReference("cannot read \(url.path)")
            }
            guard head.shape_hwc.count == 3, head.shape_hwc.allSatisfy({ $0 > 0 && $0 < 1 << 20 }) else {
                throw PoseDecodingError.unreadableReference("\(name) has shape \(head.shape_hwc), expected 3 positive sizes")
            }
            let count = head.shape_hwc.reduce(1, *)
            guard data.count == count * 4 else {
                throw PoseDecodingError.unreadableReference(
                    "\(url.path) has \(data.count) bytes, shape \(head.shape_hwc) needs \(count * 4)")
            }
            let values = data.withUnsafeBytes { raw in
                (0..<count).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
            }
            return try Tensor(shape: head.shape_hwc, values: values)
        }
        try self.init(heatmapScores: load("heatmap"), offsets: load("offsets"),
                      displacementsFwd: load("displacement_fwd"), displacementsBwd: load("displacement_bwd"),
                      outputStride: meta.output_stride)
    }
}
