import Tensor

/// The plan pass that runs MobileNet blocks in a row as one chain (Tensor's
/// `Convolution.separableChain`): each core makes a few rows of a block's output and at once the
/// next block's rows that read them, so an activation larger than the last-level cache
/// (PoseNet's 12.7 MiB after block 1 at 513) is read back from the core's cache, not from memory.
///
/// A chain is a run of consecutive ``SeparableKernel`` steps, each after the first reading only
/// the output of the one before, which no other step reads, which is not a requested output and
/// which holds at least ``minimumIntermediateBytes``; at most ``maximumBlocks`` long. Every
/// block's output is still written in full (the same values as the steps one after the other).
enum SeparableChaining {
    /// The smallest activation between two blocks worth chaining them. Measured on a Zen 1 EPYC
    /// (8 MiB L3, one core, PoseNet 0.75 at 513, chains of two): 1.3 ms saved over 12.7 MiB
    /// (blocks 1 → 2), 0.66 ms over 6.4 MiB, 0.17 ms over 3.2 MiB, 0.05–0.12 ms lost over 1.6 MiB,
    /// which stays in the last-level cache anyway while a chain's shorter GEMM runs cost a little.
    static let minimumIntermediateBytes = 2 << 20

    /// The longest chain. Chains of two measured best (Zen 1, 2 threads, PoseNet 0.75 at 513, against
    /// ONNX Runtime interleaved): 0.85× with two blocks, 0.86× with three and four, 0.88× with
    /// blocks 1–6 in one chain, whose 1×1 weights (576 KiB) no longer fit beside the bands in L2.
    static let maximumBlocks = 2

    /// The chains: first step index → number of steps.
    static func chains(_ steps: [GraphStep], shapes: [[Int]], outputs: [ValueID]) -> [Int: Int] {
        var readers: [ValueID: Int] = [:]
        for step in steps { for id in step.inputs { readers[id, default: 0] += 1 } }
        let requested = Set(outputs)
        func links(_ index: Int) -> Bool {
            let (first, second) = (steps[index], steps[index + 1])
            return first.kernel is SeparableKernel && second.kernel is SeparableKernel && second.inputs == [first.output]
                && readers[first.output] == 1 && !requested.contains(first.output)
                && shapes[first.output].reduce(1, *) * MemoryLayout<Float>.stride >= minimumIntermediateBytes
        }
        var chains: [Int: Int] = [:]
        var index = 0
        while index < steps.count {
            var count = 1
            while count < maximumBlocks && index + count < steps.count && links(index + count - 1) { count += 1 }
            if count > 1 { chains[index] = count }
            index += count
        }
        return chains
    }
}
