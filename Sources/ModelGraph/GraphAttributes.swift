import Tensor

/// The parameters of one node as a graph bundle stores them: named numbers, flags, words and
/// lists, beside the node's `op`, `inputs` and `outputs` (``GraphBundleSection/Node``).
///
/// Each operation writes its own (``GraphOperation/encode(into:)``) and reads them back
/// (``GraphOperation/init(attributes:)``) through the typed readers below, which throw a
/// ``GraphError`` naming the operation and the field (`conv2D needs "stride"`). A field the
/// operation does not read is refused by the bundle loader, so a misspelt or foreign field is
/// never silently ignored.
public struct GraphAttributes: Sendable, Equatable {
    /// One stored parameter.
    public enum Value: Sendable, Equatable {
        case int(Int)
        case bool(Bool)
        case string(String)
        case ints([Int])
        case intLists([[Int]])
        case float(Double)
        case floats([Double])
    }

    /// The operation's registered name, for errors.
    public var op: String
    /// The fields, by name.
    public var fields: [String: Value]
    /// The fields a reader asked for (the loader refuses the rest).
    private(set) var read: Set<String> = []

    public init(op: String, fields: [String: Value] = [:]) {
        self.op = op
        self.fields = fields
    }

    public static func == (a: GraphAttributes, b: GraphAttributes) -> Bool { a.op == b.op && a.fields == b.fields }

    /// The field `name`, or nil.
    public subscript(name: String) -> Value? {
        get { fields[name] }
        set { fields[name] = newValue }
    }

    private mutating func need(_ name: String) throws -> Value {
        read.insert(name)
        guard let value = fields[name] else { throw GraphError("\(op) needs \"\(name)\"") }
        return value
    }

    private func wrong(_ name: String, _ what: String) -> GraphError { GraphError("\"\(name)\" of \(op) must be \(what)") }

    /// An integer field.
    public mutating func int(_ name: String) throws -> Int {
        guard case .int(let v) = try need(name) else { throw wrong(name, "an integer") }
        return v
    }

    /// A true/false field.
    public mutating func bool(_ name: String) throws -> Bool {
        guard case .bool(let v) = try need(name) else { throw wrong(name, "true or false") }
        return v
    }

    /// A word field.
    public mutating func string(_ name: String) throws -> String {
        guard case .string(let v) = try need(name) else { throw wrong(name, "a string") }
        return v
    }

    /// A list of integers; `count` when given is the only length accepted.
    public mutating func ints(_ name: String, count: Int? = nil) throws -> [Int] {
        let value = try need(name)
        let list: [Int]
        switch value {
        case .ints(let v): list = v
        case .intLists(let v) where v.isEmpty: list = []
        default: throw wrong(name, "a list of integers")
        }
        if let count, list.count != count { throw GraphError("\"\(name)\" of \(op) must hold \(count) numbers") }
        return list
    }

    /// A list of integer lists (an empty list reads as either kind).
    public mutating func intLists(_ name: String) throws -> [[Int]] {
        switch try need(name) {
        case .intLists(let v): return v
        case .ints(let v) where v.isEmpty: return []
        default: throw wrong(name, "a list of integer lists")
        }
    }

    /// A number field (an integer is read as a number).
    public mutating func float(_ name: String) throws -> Double {
        switch try need(name) {
        case .float(let v): return v
        case .int(let v): return Double(v)
        default: throw wrong(name, "a number")
        }
    }

    /// A list of numbers (integers read as numbers).
    public mutating func floats(_ name: String) throws -> [Double] {
        switch try need(name) {
        case .floats(let v): return v
        case .ints(let v): return v.map(Double.init)
        case .intLists(let v) where v.isEmpty: return []
        default: throw wrong(name, "a list of numbers")
        }
    }

    /// The fields no reader asked for, sorted (the loader refuses a node that has any).
    var unread: [String] { fields.keys.filter { !read.contains($0) }.sorted() }
}

// MARK: - Shared parameter kinds

extension GraphAttributes {
    /// A fused activation, stored as its name (`none`, `relu`, `relu6`).
    public mutating func activation(_ name: String = "activation") throws -> Activation {
        let word = try string(name)
        guard let activation = [Activation.none, .relu, .relu6].first(where: { $0.description == word }) else {
            throw GraphError("unknown activation \"\(word)\"")
        }
        return activation
    }

    /// Stores `activation` by name.
    public mutating func set(activation: Activation, _ name: String = "activation") {
        fields[name] = .string(activation.description)
    }

    /// A 2-D window: `kernel`, `stride`, `dilation` (each `[height, width]`) and `padding`
    /// (`[top, left, bottom, right]`).
    public mutating func window() throws -> Window2D {
        let kernel = try ints("kernel", count: 2), stride = try ints("stride", count: 2)
        let dilation = try ints("dilation", count: 2), padding = try ints("padding", count: 4)
        return Window2D(kernelHeight: kernel[0], kernelWidth: kernel[1], strideHeight: stride[0], strideWidth: stride[1],
                        dilationHeight: dilation[0], dilationWidth: dilation[1],
                        padding: SpatialPadding(top: padding[0], left: padding[1], bottom: padding[2], right: padding[3]))
    }

    /// Stores `window` as ``window()`` reads it.
    public mutating func set(window: Window2D) {
        fields["kernel"] = .ints([window.kernelHeight, window.kernelWidth])
        fields["stride"] = .ints([window.strideHeight, window.strideWidth])
        fields["dilation"] = .ints([window.dilationHeight, window.dilationWidth])
        fields["padding"] = .ints([window.padding.top, window.padding.left, window.padding.bottom, window.padding.right])
    }
}

// MARK: - JSON

extension GraphAttributes.Value: Codable {
    /// Reads whichever kind the JSON holds: an integer before a number, so `3` stays an integer.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Bool.self) { self = .bool(v) }
        else if let v = try? c.decode(Int.self) { self = .int(v) }
        else if let v = try? c.decode(Double.self) { self = .float(v) }
        else if let v = try? c.decode(String.self) { self = .string(v) }
        else if let v = try? c.decode([Int].self) { self = .ints(v) }
        else if let v = try? c.decode([[Int]].self) { self = .intLists(v) }
        else if let v = try? c.decode([Double].self) { self = .floats(v) }
        else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a node field must be a number, true/false, a string, or a list of numbers or of integer lists")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .int(let v): try c.encode(v)
        case .bool(let v): try c.encode(v)
        case .string(let v): try c.encode(v)
        case .ints(let v): try c.encode(v)
        case .intLists(let v): try c.encode(v)
        case .float(let v): try c.encode(v)
        case .floats(let v): try c.encode(v)
        }
    }
}
