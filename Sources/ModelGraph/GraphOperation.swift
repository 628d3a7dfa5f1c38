import Tensor

/// One kind of operation a ``Graph`` may hold, registered by name in
/// ``GraphOperationRegistry`` (the manner of TFLite's op resolver).
///
/// Everything about an operation lives in its own file under `Sources/ModelGraph/Ops/`
/// (`Conv2D.swift`, `Add.swift`, ...): its parameters, what it computes (documented on the type),
/// its shape rule and checks (``validate(_:)``), its bundle coding (``init(attributes:)``,
/// ``encode(into:)``), how its constants are stored (``bundleLayout(ofInput:)``), its multiply-adds
/// and which kernel runs it (``bind(_:)``). Adding an operation is that file and its line in
/// ``GraphOperationRegistry/builtin`` (plus, for an imported one, the importer's mapping); ARCHITECTURE.md
/// ("Adding an operation") walks through it.
///
/// Layout conventions are the graph's (``Graph``): feature maps `[H, W, C]`, constants in the
/// layout the operation documents (converted by the importer).
public protocol GraphOperation: Sendable, CustomStringConvertible {
    /// The operation's name: the `op` of a bundle's node, `posekit info`'s word and errors' (`conv2D`).
    static var name: String { get }

    /// Reads the parameters a bundle stored (``encode(into:)``'s fields).
    ///
    /// - Throws: ``GraphError`` for a missing or ill-typed field (the readers of ``GraphAttributes`` name it).
    init(attributes: inout GraphAttributes) throws

    /// Writes the parameters into a bundle node's fields.
    func encode(into attributes: inout GraphAttributes)

    /// Checks a node of this operation against its values (arity, constants where weights are
    /// expected, parameter ranges) and that its output's shape is the one its inputs give.
    ///
    /// - Throws: ``GraphError`` through `node`'s helpers, which name the node.
    func validate(_ node: inout GraphNodeCheck) throws

    /// How the bundle stores the constant read as input `index` (weights: `HWIO`, `HWCM`, `IO`); nil: `C`.
    func bundleLayout(ofInput index: Int) -> TensorLayout?

    /// Multiply-adds of one run of a node of this operation (0 for data movement and element-wise work).
    func multiplyAdds(inputs: [GraphValue], output: GraphValue) -> Int

    /// Binds a node of this operation to the kernel that runs it (``GraphBinding``: its constants,
    /// packed weights, the plan's passes' decisions about it).
    ///
    /// - Throws: `GraphRunnerError.unsupported` for a configuration no kernel runs.
    func bind(_ binding: inout GraphBinding) throws

    /// Whether `other` is the same operation with the same parameters.
    func isEqual(to other: any GraphOperation) -> Bool
}

extension GraphOperation {
    /// The operation's name (``GraphOperation/name``).
    public var name: String { Self.name }

    public func bundleLayout(ofInput index: Int) -> TensorLayout? { nil }

    public func multiplyAdds(inputs: [GraphValue], output: GraphValue) -> Int { 0 }

    /// The name, then the parameters as a bundle stores them: `conv2D(activation: relu6, kernel: [3, 3], ...)`.
    public var description: String {
        var attributes = GraphAttributes(op: Self.name)
        encode(into: &attributes)
        guard !attributes.fields.isEmpty else { return Self.name }
        let fields = attributes.fields.sorted { $0.key < $1.key }.map { key, value -> String in
            switch value {
            case .int(let v): return "\(key): \(v)"
            case .bool(let v): return "\(key): \(v)"
            case .string(let v): return "\(key): \(v)"
            case .ints(let v): return "\(key): \(v)"
            case .intLists(let v): return "\(key): \(v)"
            case .float(let v): return "\(key): \(v)"
            case .floats(let v): return "\(key): \(v)"
            }
        }
        return "\(Self.name)(\(fields.joined(separator: ", ")))"
    }
}

extension GraphOperation where Self: Equatable {
    public func isEqual(to other: any GraphOperation) -> Bool { (other as? Self) == self }
}
