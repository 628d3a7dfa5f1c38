import Tensor

/// Bilinear resize of `[H, W, C]` to the output value's `[H', W', C]`: `inputs: [x]`, TF's
/// `align_corners` / `half_pixel_centers` flags (the runner runs half-pixel centres only).
public struct ResizeBilinearOp: GraphOperation, Equatable {
    public static let name = "resizeBilinear"
    public var alignCorners: Bool
    public var halfPixelCenters: Bool

    public init(alignCorners: Bool, halfPixelCenters: Bool) {
        self.alignCorners = alignCorners
        self.halfPixelCenters = halfPixelCenters
    }

    public init(attributes: inout GraphAttributes) throws {
        alignCorners = try attributes.bool("alignCorners")
        halfPixelCenters = try attributes.bool("halfPixelCenters")
    }

    public func encode(into attributes: inout GraphAttributes) {
        attributes["alignCorners"] = .bool(alignCorners)
        attributes["halfPixelCenters"] = .bool(halfPixelCenters)
    }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0), out = node.output
        guard x.count == 3, out.count == 3, out[2] == x[2] else { throw node.fail("resizes \(x) to \(out)") }
        guard !(alignCorners && halfPixelCenters) else { throw node.fail("align corners and half-pixel centres together") }
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        guard !alignCorners && halfPixelCenters else {
            throw binding.unsupported("align_corners \(alignCorners), half_pixel_centers \(halfPixelCenters) (only half-pixel centers are supported)")
        }
        binding.addStep(ResizeBilinearKernel(), binding.node.inputs)
    }
}

struct ResizeBilinearKernel: GraphKernel {
    var kind: String { "resize bilinear" }
    func run(_ io: GraphKernelIO) throws { try Resize.bilinear(io.input(0), into: io.output, threads: io.threads) }
}
