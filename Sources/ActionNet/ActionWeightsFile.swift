import Foundation

/// Reads and writes `actionnet.pkw`, the classifier's weight file (documented in
/// `Weights/actionnet.md`):
///
/// ```
/// bytes 0..<8   magic "PKACTN01"
/// bytes 8..<12  UInt32 LE: header length H
/// 12..<12+H     UTF-8 JSON header: {"architecture": {...}, "fps": 30, "window_stride": 10,
///               "classes": [...], "parameters": N, "training": {...}}
/// then          zero padding to a multiple of 4 bytes, then N little-endian Float32 parameters
/// ```
/// The parameters are ``TemporalConvNet``'s flat vector. Kept inside ActionNet so it can be
/// swapped for the project-wide bundle format later.
public enum ActionWeightsFile {
    static let magic = Array("PKACTN01".utf8)

    /// What the header records besides the parameters.
    public struct Header: Codable, Equatable, Sendable {
        public var architecture: TemporalConvNet.Architecture
        public var fps: Double
        public var windowStride: Int
        public var classes: [String]
        public var parameters: Int
        /// Free-form provenance (seed, epochs, data) copied from training.
        public var training: [String: String]

        enum CodingKeys: String, CodingKey {
            case architecture, fps, classes, parameters, training
            case windowStride = "window_stride"
        }
    }

    /// Serialises a network and its windowing settings.
    public static func encode(_ net: TemporalConvNet, fps: Double, windowStride: Int, training: [String: String]) throws -> Data {
        let header = Header(architecture: net.architecture, fps: fps, windowStride: windowStride,
                            classes: ActionClass.allCases.map(\.name), parameters: net.parameterCount, training: training)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = try encoder.encode(header)
        var data = Data(magic)
        var h = UInt32(json.count).littleEndian
        withUnsafeBytes(of: &h) { data.append(contentsOf: $0) }
        data.append(json)
        while data.count % 4 != 0 { data.append(0) }
        for v in net.parameterValues {
            var bits = v.bitPattern.littleEndian
            withUnsafeBytes(of: &bits) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// Parses a weight file into a ready network and its header.
    public static func decode(_ data: Data) throws -> (TemporalConvNet, Header) {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, Array(bytes[0..<8]) == magic else { throw ActionNetError.badWeights("not an ActionNet weight file (bad magic)") }
        let h = Int(UInt32(bytes[8]) | UInt32(bytes[9]) << 8 | UInt32(bytes[10]) << 16 | UInt32(bytes[11]) << 24)
        guard h <= bytes.count - 12 else { throw ActionNetError.badWeights("header length \(h) exceeds file size") }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: Data(bytes[12..<(12 + h)]))
        } catch {
            throw ActionNetError.badWeights("unreadable JSON header")
        }
        guard header.classes == ActionClass.allCases.map(\.name) else {
            throw ActionNetError.badWeights("classes \(header.classes) differ from \(ActionClass.allCases.map(\.name))")
        }
        guard header.fps.isFinite, header.fps >= 1, header.windowStride >= 1 else { throw ActionNetError.badWeights("bad fps or stride") }
        let net = try TemporalConvNet(architecture: header.architecture)
        guard header.parameters == net.parameterCount else {
            throw ActionNetError.badWeights("header says \(header.parameters) parameters, architecture needs \(net.parameterCount)")
        }
        var start = 12 + h
        while start % 4 != 0 { start += 1 }
        guard bytes.count == start + 4 * net.parameterCount else {
            throw ActionNetError.badWeights("expected \(start + 4 * net.parameterCount) bytes, file has \(bytes.count)")
        }
        var values = [Float](repeating: 0, count: net.parameterCount)
        for i in 0..<net.parameterCount {
            let o = start + 4 * i
            let bits = UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
            values[i] = Float(bitPattern: bits)
            guard values[i].isFinite else { throw ActionNetError.badWeights("parameter \(i) is not finite") }
        }
        net.parameterValues = values
        return (net, header)
    }

    /// Loads a weight file from disk.
    public static func load(contentsOf url: URL) throws -> (TemporalConvNet, Header) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw ActionNetError.badWeights("cannot read \(url.path)") }
        return try decode(data)
    }
}
