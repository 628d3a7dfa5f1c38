import Foundation
import Tensor

/// Adam (Kingma & Ba) with decoupled weight decay, over a network's flat parameter vector.
final class AdamOptimizer {
    var learningRate: Float
    let beta1: Float = 0.9, beta2: Float = 0.999, epsilon: Float = 1e-8
    var weightDecay: Float
    /// First and second moment estimates, one per parameter.
    private let firstMoment: TensorStorage, secondMoment: TensorStorage
    private var step = 0

    init(parameterCount: Int, learningRate: Float, weightDecay: Float = 0) {
        self.learningRate = learningRate
        self.weightDecay = weightDecay
        firstMoment = TensorStorage(count: parameterCount)
        secondMoment = TensorStorage(count: parameterCount)
    }

    /// One update of `count` parameters from `gradients` (which the caller zeroes afterwards).
    func update(_ parameters: UnsafeMutablePointer<Float>, _ gradients: UnsafePointer<Float>, count: Int) {
        step += 1
        let c1 = 1 - powf(beta1, Float(step)), c2 = 1 - powf(beta2, Float(step))
        let lr = learningRate, wd = weightDecay
        let p = parameters, g = gradients, mp = firstMoment.floats, vp = secondMoment.floats
        for i in 0..<count {
            let gi = g[i]
            mp[i] = beta1 * mp[i] + (1 - beta1) * gi
            vp[i] = beta2 * vp[i] + (1 - beta2) * gi * gi
            p[i] -= lr * ((mp[i] / c1) / ((vp[i] / c2).squareRoot() + epsilon) + wd * p[i])
        }
    }
}
