import Testing
@testable import FrameIO

@Test func FrameIOPlaceholder() { #expect(Bool(true)) }
