import Testing
@testable import Tensor

@Test func TensorPlaceholder() { #expect(Bool(true)) }
