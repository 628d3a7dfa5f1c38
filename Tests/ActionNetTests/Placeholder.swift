import Testing
@testable import ActionNet

@Test func ActionNetPlaceholder() { #expect(Bool(true)) }
