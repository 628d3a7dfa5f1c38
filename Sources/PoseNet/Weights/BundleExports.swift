// The weight bundle container lives in Tensor (Sources/Tensor/Bundle/) so that PoseNet and
// ActionNet both use it without importing each other; `import PoseNet` keeps offering it.
@_exported import class Tensor.WeightBundle
@_exported import struct Tensor.WeightBundleWriter
@_exported import struct Tensor.WeightBundleHeader
@_exported import struct Tensor.WeightManifest
@_exported import enum Tensor.WeightBundleError
@_exported import enum Tensor.WeightChecksum
@_exported import enum Tensor.WeightDType
@_exported import enum Tensor.TensorLayout
@_exported import enum Tensor.JSONValue
@_exported import enum Tensor.ModelLocator
