import Tensor

/// 2-D average pooling: `inputs: [x]` `[H, W, C]`; the zero padding counts in each window's
/// divisor unless `excludingPadding` (then only the taps inside the input do).
public struct AveragePool2DOp: GraphOperation, Equatable {
    public static let name = "averagePool2D"
    public var window: Window2D
    public var excludingPadding: Bool

    public init(window: Window2D, excludingPadding: Bool) {
        self.window = window
        self.excludingPadding = excludingPadding
    }

    public init(attributes: inout GraphAttributes) throws {
        window = try attributes.window()
        excludingPadding = try attributes.bool("excludingPadding")
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes.set(window: window)
        attributes["excludingPadding"] = .bool(excludingPadding)
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0)
        guard x.count == 3 else { throw node.fail("input shape \(x) is not [H, W, C]") }
        let (h, w) = try node.windowOutput(window, x)
        try node.expect([h, w, x[2]])
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        guard window.padding.top < window.kernelHeight, window.padding.left < window.kernelWidth else {
            throw binding.unsupported("padding \(window.padding) is wider than the window")
        }
        binding.addStep(AveragePoolKernel(window: window, excludingPadding: excludingPadding), binding.node.inputs)
    }
}

struct AveragePoolKernel: GraphKernel {
    let window: Window2D
    let excludingPadding: Bool
    var kind: String { "average pool" }
    func run(_ io: GraphKernelIO) throws {
        try Pooling.averagePool(io.input(0), kernelHeight: window.kernelHeight, kernelWidth: window.kernelWidth,
                                strideHeight: window.strideHeight, strideWidth: window.strideWidth,
                                padTop: window.padding.top, padLeft: window.padding.left,
                                excludingPadding: excludingPadding, into: io.output, threads: io.threads)
    }
}
