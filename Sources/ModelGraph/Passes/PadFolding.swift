/// The plan pass that runs a `PAD` as its depthwise consumer's padding (no copy): spatial zero
/// padding only, read by that one node alone (and not an output), amounts that keep the combined
/// padding narrower than the window (the pose models' `[1, 1]` before 3×3 and `[2, 2]` before
/// 5×5 stride-2 layers). ``DepthwiseConv2DOp`` reads the pad's input and adds its amounts.
enum PadFolding {
    /// Pad node → the depthwise node that takes it on, among `needed` nodes.
    static func foldedPads(_ graph: Graph, needed: [Bool], outputs: [ValueID], producer: [Int?]) -> [Int: Int] {
        var readers = [Int](repeating: 0, count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() where needed[index] { for id in node.inputs { readers[id] += 1 } }
        for id in outputs { readers[id] += 1 }
        var folded: [Int: Int] = [:]
        for (index, node) in graph.nodes.enumerated() where needed[index] {
            guard let depthwise = node.operation as? DepthwiseConv2DOp, let x = node.inputs.first, readers[x] == 1,
                  let pad = producer[x], let amounts = (graph.nodes[pad].operation as? PadOp)?.amounts, amounts.count == 3,
                  amounts[2] == PadAmount(before: 0, after: 0),
                  depthwise.window.padding.top + amounts[0].before < depthwise.window.kernelHeight,
                  depthwise.window.padding.left + amounts[1].before < depthwise.window.kernelWidth else { continue }
            folded[pad] = index
        }
        return folded
    }
}
