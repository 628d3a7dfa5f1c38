import Testing
@testable import PoseNet

@Test func PoseNetPlaceholder() { #expect(Bool(true)) }
